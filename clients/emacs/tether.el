;;; tether.el --- Tether language server for Emacs (eglot)  -*- lexical-binding: t; -*-

;; Registers tether-lsp with eglot for Python and YAML buffers, tells the server about the active buffer and
;; the cursor (prompt playground), and adds commands for markers, selectors and inline tasks.
;;
;;   (add-to-list 'load-path "/path/to/tether/clients/emacs")
;;   (require 'tether)
;;   (setq tether-command '("/path/to/tether/.venv/bin/tether-lsp"))
;;   (tether-setup)
;;
;; Commands: `tether-add-marker' (on the region), `tether-list-markers' (a list where RET jumps),
;; `tether-select', `tether-playground', `tether-run-task' (asynchronous, no client-side timeout) and
;; `tether-cancel-task'.  Only eglot is supported (not lsp-mode).

;;; Code:

(require 'eglot)
(require 'cl-lib)
(require 'json)

(defgroup tether nil "The Tether language server." :group 'tools)

(defcustom tether-command '("tether-lsp")
  "How to start the server."
  :type '(repeat string))

(defcustom tether-settings nil
  "The `tether' settings section, as a plist (e.g. (:database (:url \"postgresql://...\")))."
  :type 'plist)

(defvar tether-playground-state nil "The last `tether/playground/didChangeState' received.")
(defvar-local tether--playground-server nil "The server the playground buffer talks to.")
(defvar tether-markers-changed-hook nil "Run when the server says markers moved (a commit, a teammate).")

(defclass tether-server (eglot-lsp-server) ()
  :documentation "Tether: eglot plus the experimental capabilities it opts into.")

(cl-defmethod eglot-client-capabilities ((server tether-server))
  "Opt into multi-line inline completion ranges (Emacs applies them correctly)."
  (append (cl-call-next-method server)
          (list :experimental (list :tether (list :multilineInlineCompletionRange t)))))

(cl-defmethod eglot-initialization-options ((_server tether-server))
  (list :tether (or tether-settings (make-hash-table))))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/markers/didChange)) &rest _)
  (run-hooks 'tether-markers-changed-hook))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/playground/didChangeState))
                                         &rest state)
  (setq tether-playground-state state)
  (when (fboundp 'tether--playground-redraw)
    (tether--playground-load-quietly)
    (tether--playground-redraw)))

(defun tether--playground-load-quietly ()
  "Load the new prompt's inputs when the playground buffer is shown (never from a plain notification otherwise)."
  (when-let ((buffer (get-buffer "*tether-playground*")))
    (with-current-buffer buffer
      (when tether--playground-server
        (ignore-errors (tether--playground-load))))))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/edits/didUpdate)) &rest _)
  nil)

(cl-defmethod eglot-handle-request ((_server tether-server) (_method (eql workspace/applyEdit)) &key _label edit)
  "Tether's own edits (a task's changes streaming in), applied without asking: eglot would ask \"Server wants to
edit … Proceed?\" for every piece.  Scoped to Tether's server; other servers still ask as configured."
  (tether--apply-edit edit)
  `(:applied t))

(defun tether--apply-edit (edit)
  "Apply the WorkspaceEdit EDIT: create files, edit buffers; a file that was not visited is saved and its buffer
killed again, so a task's change to a closed file ends up on disk, not in a hidden modified buffer."
  (let ((changes (plist-get edit :changes))
        (document-changes (plist-get edit :documentChanges))
        (prepared nil))
    (cl-loop for change across (or document-changes [])
             do (if (equal (plist-get change :kind) "create")
                    (let ((path (eglot--uri-to-path (plist-get change :uri))))
                      (make-directory (file-name-directory path) t)
                      (unless (file-exists-p path) (write-region "" nil path nil 'silent)))
                  (let ((doc (plist-get change :textDocument)))
                    (push (list (eglot--uri-to-path (plist-get doc :uri)) (plist-get change :edits)
                                (plist-get doc :version))
                          prepared))))
    (unless document-changes
      (cl-loop for (uri edits) on changes by #'cddr
               do (push (list (eglot--uri-to-path uri) edits nil) prepared)))
    (dolist (item (nreverse prepared))
      (cl-destructuring-bind (path edits version) item
        (let* ((visited (find-buffer-visiting path))
               (buffer (or visited (let ((enable-local-variables nil)) (find-file-noselect path)))))
          (with-current-buffer buffer
            (eglot--apply-text-edits edits (and visited version))
            ;; say so at once (eglot waits for idle time): the server's next piece, or its revert on cancel, is
            ;; computed on the text it knows, and the reply to this request comes after this notification
            (when visited (tether--flush))
            (unless visited
              (let ((save-silently t)) (save-buffer))
              (kill-buffer))))))))

(defun tether--server ()
  (or (eglot-current-server) (user-error "Tether is not running in this buffer")))

(defun tether--uri ()
  (eglot--path-to-uri (buffer-file-name)))

(defun tether--position (&optional point)
  (save-excursion (when point (goto-char point)) (eglot--pos-to-lsp-position)))

(defun tether--flush ()
  "Send the buffer's pending changes first (eglot batches them): the server must see what we see."
  (when (fboundp 'eglot--signal-textDocument/didChange)
    (eglot--signal-textDocument/didChange)))

(defun tether-request (method params)
  "Send METHOD with PARAMS to the server of this buffer and wait for the answer."
  (let ((server (tether--server)))
    (tether--flush)
    (jsonrpc-request server method params)))

(defun tether-active-editor ()
  "Tell the server which buffer is active and where the cursor is."
  (when (and (eglot-current-server) (buffer-file-name))
    (tether--flush)
    (jsonrpc-notify (eglot-current-server) :tether/editor/didChangeActiveEditor
                    (list :textDocument (list :uri (tether--uri)) :position (tether--position)))))

(defvar tether--cursor-timer nil)
(defun tether--cursor-moved ()
  (when (and (eglot-current-server) (buffer-file-name))
    (when tether--cursor-timer (cancel-timer tether--cursor-timer))
    (let ((buffer (current-buffer)))
      (setq tether--cursor-timer
            (run-with-idle-timer
             0.1 nil
             (lambda ()
               (when (buffer-live-p buffer)
                 (with-current-buffer buffer
                   (when (eglot-current-server)
                     (tether--flush)
                     (jsonrpc-notify (eglot-current-server) :tether/editor/didChangeCursor
                                     (list :textDocument (list :uri (tether--uri))
                                           :position (tether--position))))))))))))

(defun tether-add-marker (beg end note)
  "Pin NOTE to the region from BEG to END."
  (interactive "r\nsNote: ")
  (tether-request :tether/markers/create
                  (list :textDocument (list :uri (tether--uri))
                        :range (list :start (tether--position beg) :end (tether--position end))
                        :note note)))

(defvar-local tether--markers-source nil "The buffer whose markers this list shows.")

(defun tether-list-markers ()
  "The markers of this file (a vector of plists); interactively, shown in a list where RET jumps to a marker."
  (interactive)
  (let* ((uri (tether--uri))
         (source (current-buffer))
         (markers (plist-get (tether-request :tether/markers/list (list :textDocument (list :uri uri))) :markers)))
    (tether--draw-markers markers)
    (when (called-interactively-p 'any)
      (with-current-buffer (get-buffer-create "*tether-markers*")
        (tether-markers-mode)
        (setq tether--markers-source source)
        (setq tabulated-list-entries
              (cl-loop for m across markers
                       collect (let ((r (plist-get m :range)))
                                 (list m (vector (if r (number-to-string (1+ (plist-get (plist-get r :start) :line)))
                                                   (format "missing (%s)" (plist-get m :missingReason)))
                                                 (plist-get m :kind)
                                                 (car (split-string (plist-get m :note) "\n")))))))
        (tabulated-list-print)
        (pop-to-buffer (current-buffer))))
    markers))

(define-derived-mode tether-markers-mode tabulated-list-mode "Tether markers"
  "The markers of a file; RET jumps to the one at point."
  (setq tabulated-list-format [("Line" 14 t) ("Kind" 9 t) ("Note" 0 nil)])
  (tabulated-list-init-header))

(define-key tether-markers-mode-map (kbd "RET") #'tether-markers-jump)

(defun tether-markers-jump ()
  "Go to the code of the marker at point."
  (interactive)
  (let* ((m (tabulated-list-get-id))
         (range (and m (plist-get m :range))))
    (unless range (user-error "This marker's code is gone"))
    (pop-to-buffer tether--markers-source)
    (goto-char (eglot--lsp-position-to-point (plist-get range :start)))))

(defface tether-marker-face '((t :inherit font-lock-comment-face :slant italic))
  "How a marker's note shows after its first line.")

(defun tether--draw-markers (markers)
  "Overlays: each located marker's note after its first line."
  (remove-overlays (point-min) (point-max) 'tether-marker t)
  (cl-loop for m across markers
           for range = (plist-get m :range)
           when range
           do (save-excursion
                (goto-char (eglot--lsp-position-to-point (plist-get range :start)))
                (let ((ov (make-overlay (line-end-position) (line-end-position))))
                  (overlay-put ov 'tether-marker t)
                  (overlay-put ov 'after-string
                               (propertize (format "  [%s] %s" (plist-get m :kind)
                                                   (car (split-string (plist-get m :note) "\n")))
                                           'face 'tether-marker-face))))))

(defvar-local tether--cursor-ids nil
  "The buffer's structural cursors (node ids) between `tether-select' commands, or nil.")
(defvar-local tether--cursor-expect nil
  "Where `tether-select' left point: a command that moves point elsewhere ends the structural cursors.")

(defun tether--cursors-forget (&rest _)
  "An edit, or a move of point that is not ours: the structural cursors are forgotten."
  (setq tether--cursor-ids nil tether--cursor-expect nil))

(defun tether--cursors-check ()
  (when (and tether--cursor-ids (not (eql (point) tether--cursor-expect))
             (not (memq this-command '(tether-select tether-select-reset))))
    (tether--cursors-forget)))

(defun tether-select-reset ()
  "Forget the structural cursors of this buffer."
  (interactive)
  (tether--cursors-forget)
  (deactivate-mark))

(defun tether--selector-args (name args)
  "ARGS (strings) as the selector NAME declares them: integers for int/nat arguments."
  (let* ((listed (plist-get (tether-request :tether/listSelectors (make-hash-table)) :selectors))
         (spec (cl-find name listed :key (lambda (s) (plist-get s :name)) :test #'equal))
         (types (mapcar (lambda (a) (plist-get a :type)) (plist-get spec :args))))
    (vconcat (cl-loop for arg in args for k from 0
                      collect (if (and (member (nth k types) '("int" "nat")) (string-match-p "\\`-?[0-9]+\\'" arg))
                                  (string-to-number arg)
                                arg)))))

(defun tether-select (&rest chain)
  "Apply the selector CHAIN (strings like \"selectMethods\" or \"filterText:^def\") to the buffer's structural
cursors: a later call continues from where this one ended, until point is moved or the buffer edited.  The first
range becomes the region."
  (interactive (split-string (completing-read
                              "Selectors: "
                              (mapcar (lambda (s) (plist-get s :name))
                                      (plist-get (tether-request :tether/listSelectors (make-hash-table)) :selectors)))))
  (add-hook 'after-change-functions #'tether--cursors-forget nil t)
  (add-hook 'post-command-hook #'tether--cursors-check nil t)
  (let ((ids (or tether--cursor-ids [])) result)
    (catch 'done
      (dolist (step chain)
        (let* ((colon (string-match ":" step))
               (name (if colon (substring step 0 colon) step))
               (args (tether--selector-args name (if colon (list (substring step (1+ colon))) nil))))
          (setq result (condition-case err
                           (tether-request :tether/applySelector
                                           (list :uri (tether--uri) :cursorNodeIds ids :selector name :args args))
                         (jsonrpc-error (message "Tether: %s: %s" name (cadr (assq 'jsonrpc-error-message (cdr err))))
                                        (throw 'done nil))))
          (setq ids (plist-get result :cursorNodeIds))
          (when (= (length ids) 0)
            (message "Tether: %s: nothing matched" name)
            (tether--cursors-forget)
            (throw 'done nil)))))
    (when (and result (> (length (plist-get result :cursorNodeIds)) 0))
      (let* ((range (aref (plist-get result :ranges) 0))
             (beg (eglot--lsp-position-to-point (plist-get range :start)))
             (end (eglot--lsp-position-to-point (plist-get range :end))))
        (push-mark beg t t)
        (goto-char end)
        (setq tether--cursor-ids (plist-get result :cursorNodeIds)
              tether--cursor-expect (point))))
    result))

;;; Replacement preview

(defface tether-struck-face '((t :strike-through t :inherit diff-removed))
  "The code a previewed replacement would replace.")
(defface tether-new-face '((t :inherit diff-added :extend t))
  "The new code of a previewed replacement.")

(defvar-local tether--preview nil "The pending replacement: (OVERLAYS EDIT).")

(defvar tether-preview-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'tether-preview-accept)
    (define-key map (kbd "<tab>") #'tether-preview-accept)
    (define-key map (kbd "C-g") #'tether-preview-reject)
    (define-key map (kbd "<escape>") #'tether-preview-reject)
    map)
  "Keys while a replacement preview is shown: TAB accepts, ESC or C-g rejects.")

(define-minor-mode tether-preview-mode
  "A replacement preview is shown: TAB accepts it wherever point is, ESC or C-g rejects it."
  :lighter " Tether-preview"
  (unless tether-preview-mode (tether-preview-reject)))

(defun tether-preview-reject ()
  "Drop the replacement preview."
  (interactive)
  (when tether--preview
    (mapc #'delete-overlay (car tether--preview))
    (setq tether--preview nil)
    (remove-hook 'after-change-functions #'tether--preview-edited t)
    (when tether-preview-mode (tether-preview-mode -1))))

(defun tether-preview-accept ()
  "Write the previewed replacement."
  (interactive)
  (let ((edit (cadr tether--preview)))
    (tether-preview-reject)
    (when edit (eglot--apply-text-edits (vector edit)))))

(defun tether--preview-edited (beg end _len)
  "An edit inside the struck code drops the preview."
  (let ((old (car (car tether--preview))))
    (when (and old (<= beg (overlay-end old)) (>= end (overlay-start old)))
      (tether-preview-reject))))

(defun tether-preview (completion)
  "Ask whether COMPLETION at point replaces a unit; show it (old code struck, the new block under it)."
  (interactive "sCompletion: ")
  (let ((analysis (tether-request :tether/analyzeReplacement
                                  (list :textDocument (list :uri (tether--uri)
                                                            :version eglot--versioned-identifier)
                                        :position (tether--position)
                                        :completion completion))))
    (tether-preview-reject)
    (if (and (equal (plist-get analysis :mode) "replace") (eq (plist-get analysis :showVisualDiff) t))
        (let* ((range (plist-get analysis :replaceRange))
               (beg (eglot--lsp-position-to-point (plist-get range :start)))
               (end (eglot--lsp-position-to-point (plist-get range :end)))
               (end (save-excursion (goto-char end) (if (and (bolp) (> end beg)) (1- end) (line-end-position))))
               (old (make-overlay beg end))
               (new (make-overlay end end))
               (text (string-trim-right (plist-get (plist-get analysis :edit) :newText) "\n")))
          (overlay-put old 'face 'tether-struck-face)
          (overlay-put new 'after-string (concat "\n" (propertize text 'face 'tether-new-face)))
          (setq tether--preview (list (list old new) (plist-get analysis :edit)))
          (add-hook 'after-change-functions #'tether--preview-edited nil t)
          (tether-preview-mode 1))
      (eglot--apply-text-edits (vector (plist-get analysis :edit))))
    analysis))

(defun tether-playground ()
  "The playground state (a plist); interactively, the *tether-playground* buffer: the prompt under the cursor,
its variables (e sets one, saved with the prompt), r runs it with the answer streaming in, c cancels, p pins."
  (interactive)
  (let ((state (tether-request :tether/playground/getState (make-hash-table))))
    (setq tether-playground-state state)
    (when (called-interactively-p 'any)
      (let ((server (eglot-current-server)))
        (with-current-buffer (get-buffer-create "*tether-playground*")
          (tether-playground-mode)
          (setq tether--playground-server server)
          (tether--playground-load)
          (tether--playground-render)
          (display-buffer (current-buffer)))))
    state))

(defvar tether--playground-values (make-hash-table :test 'equal) "promptId -> alist of (name . value).")
(defvar tether--playground-runs (make-hash-table :test 'equal) "promptId -> the last runs (a vector).")
(defvar tether--playground-output nil "The output of the current or last run.")
(defvar tether--playground-run nil "The running request's id, or nil.")

(define-derived-mode tether-playground-mode special-mode "Tether playground"
  "The prompt under the cursor: e sets a variable, r runs, c cancels, p pins or unpins, g refreshes.")
(define-key tether-playground-mode-map (kbd "e") #'tether-playground-set-variable)
(define-key tether-playground-mode-map (kbd "r") #'tether-playground-run)
(define-key tether-playground-mode-map (kbd "c") #'tether-playground-cancel)
(define-key tether-playground-mode-map (kbd "p") #'tether-playground-pin)
(define-key tether-playground-mode-map (kbd "g") #'tether-playground-refresh)

(defun tether--playground-prompt ()
  (let ((p (plist-get tether-playground-state :prompt))) (and (listp p) p)))

(defun tether--playground-request (method params)
  (jsonrpc-request tether--playground-server method params))

(defun tether--playground-stored (method params)
  "METHOD's answer, or nil with the reason in the echo area (the server's database cannot be used)."
  (condition-case err
      (tether--playground-request method params)
    (jsonrpc-error
     (message "Tether: %s" (or (alist-get 'jsonrpc-error-message (cdr err)) (cadr err)))
     nil)))

(defun tether--playground-load ()
  "Read the selected prompt's saved variables and last runs from the server (once per prompt)."
  (let* ((p (tether--playground-prompt)) (id (plist-get p :promptId)))
    (when (and id (not (gethash id tether--playground-values)))
      (let* ((saved (tether--playground-stored :tether/playground/getSettings (list :promptId id)))
             (vars (plist-get saved :variables)))
        (puthash id (cl-loop for (k v) on vars by #'cddr when (stringp v)
                             collect (cons (substring (symbol-name k) 1) v))
                 tether--playground-values)
        (puthash id (tether--playground-stored :tether/playground/runs (list :promptId id :limit 3))
                 tether--playground-runs)))))

(defun tether--playground-render ()
  (let ((inhibit-read-only t) (p (tether--playground-prompt)) (s tether-playground-state))
    (erase-buffer)
    (insert (propertize "Prompts\n" 'face 'bold))
    (cl-loop for item across (plist-get s :prompts)
             do (insert (if (equal (plist-get item :promptId) (plist-get p :promptId)) "▶ " "  ")
                        (plist-get item :anchor) "  " (plist-get item :preview) "\n"))
    (insert "\n")
    (if (not p)
        (insert "Put the cursor in a prompt to select it.\n")
      (insert (propertize (format "%s  [%s]\n" (plist-get p :anchor) (plist-get p :reason)) 'face 'bold)
              (plist-get p :content) "\n")
      (let ((values (gethash (plist-get p :promptId) tether--playground-values)))
        (cl-loop for name across (or (plist-get p :variables) [])
                 do (insert (format "  %s = %s\n" name (or (cdr (assoc name values)) "(not set: e)")))))
      (when tether--playground-output
        (insert "\n" (if tether--playground-run "Output (running, c cancels):\n" "Output:\n")
                tether--playground-output "\n"))
      (let ((runs (gethash (plist-get p :promptId) tether--playground-runs)))
        (when (> (length runs) 0)
          (insert "\nRuns:\n")
          (cl-loop for r across runs
                   do (insert (format "  %s %s: %s\n" (plist-get r :createdAt) (plist-get r :model)
                                      (car (split-string (plist-get r :output) "\n"))))))))
    (insert "\ne set a variable · r run · c cancel · p pin/unpin · g refresh\n")))

(defun tether--playground-redraw ()
  (when-let ((buffer (get-buffer "*tether-playground*")))
    (with-current-buffer buffer (tether--playground-render))))

(defun tether-playground-refresh ()
  "Read the state again."
  (interactive)
  (setq tether-playground-state (tether--playground-request :tether/playground/getState (make-hash-table)))
  (tether--playground-load)
  (tether--playground-render))

(defun tether-playground-set-variable (name value)
  "Set the selected prompt's variable NAME to VALUE (saved with the prompt)."
  (interactive
   (let* ((p (tether--playground-prompt))
          (name (completing-read "Variable: " (append (plist-get p :variables) nil) nil t)))
     (list name (read-string (format "%s = " name)))))
  (let* ((p (tether--playground-prompt)) (id (plist-get p :promptId))
         (values (cons (cons name value) (assoc-delete-all name (gethash id tether--playground-values))))
         (saved (or (tether--playground-request :tether/playground/getSettings (list :promptId id)) nil))
         (vars (make-hash-table :test 'equal)))
    (puthash id values tether--playground-values)
    (dolist (pair values) (puthash (car pair) (cdr pair) vars))
    (tether--playground-request :tether/playground/setSettings
                                (list :promptId id :settings (plist-put (copy-sequence saved) :variables vars)))
    (tether--playground-render)))

(defun tether-playground-run ()
  "Run the selected prompt; the answer streams into the buffer."
  (interactive)
  (let* ((p (tether--playground-prompt)) (id (plist-get p :promptId))
         (server tether--playground-server)   ; the callbacks run in the process filter, in another buffer
         (vars (make-hash-table :test 'equal)))
    (when (and id (not tether--playground-run))
      (dolist (pair (gethash id tether--playground-values)) (puthash (car pair) (cdr pair) vars))
      (setq tether--playground-output "")
      (setq tether--playground-run
            (car (jsonrpc--async-request-1
                  server :tether/playground/run (list :promptId id :variables vars)
                  :timeout nil
                  :success-fn (lambda (result)
                                (setq tether--playground-run nil
                                      tether--playground-output (plist-get result :output))
                                (puthash id (jsonrpc-request server :tether/playground/runs
                                                             (list :promptId id :limit 3))
                                         tether--playground-runs)
                                (tether--playground-redraw))
                  :error-fn (lambda (err)
                              (setq tether--playground-run nil
                                    tether--playground-output
                                    (concat tether--playground-output
                                            (format "\n[%s]" (if (eql (plist-get err :code) -32800) "cancelled"
                                                               (plist-get err :message)))))
                              (tether--playground-redraw)))))
      (tether--playground-render))))

(defun tether-playground-cancel ()
  "Cancel the running prompt."
  (interactive)
  (when tether--playground-run
    (jsonrpc-notify tether--playground-server :$/cancelRequest (list :id tether--playground-run))))

(defun tether-playground-pin ()
  "Pin the selected prompt, or unpin."
  (interactive)
  (let ((p (tether--playground-prompt)) (pin (plist-get tether-playground-state :pin)))
    (setq tether-playground-state
          (if (listp pin) (if pin (tether--playground-request :tether/playground/unpin (make-hash-table))
                            (tether--playground-request :tether/playground/pin
                                                        (list :fileId (plist-get p :fileId)
                                                              :promptId (plist-get p :promptId))))
            tether-playground-state))
    (tether--playground-render)))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/playground/didRunOutput))
                                         &key delta &allow-other-keys)
  (when tether--playground-run
    (setq tether--playground-output (concat tether--playground-output delta))
    (tether--playground-redraw)))

(defvar tether--task nil "The running task: (SERVER ID), or nil.")
(defvar tether-task-finished-hook nil
  "Run with the task's result plist (or an error plist with :code) when a task ends.")

(defun tether-run-task ()
  "Run the `@run <instruction>' line under the cursor, asynchronously: Emacs stays usable, the changes stream in
without questions, `tether-cancel-task' stops it.  There is no client-side timeout (the server has its own)."
  (interactive)
  (when tether--task (user-error "A Tether task is already running (M-x tether-cancel-task)"))
  (let ((server (tether--server)))
    (tether--flush)
    ;; `jsonrpc-async-request' returns nil; the function it calls returns (ID TIMER): the id is what
    ;; `tether-cancel-task' needs to send $/cancelRequest.
    (let ((sent (jsonrpc--async-request-1
                 server :tether/tasks/run
                 (list :textDocument (list :uri (tether--uri)) :position (tether--position))
                 :timeout nil
                 :success-fn (lambda (result)
                               (setq tether--task nil)
                               (message "Tether task: %s"
                                        (mapconcat (lambda (e) (format "%s: %s" (file-name-nondirectory
                                                                                 (eglot--uri-to-path (plist-get e :uri)))
                                                                       (plist-get e :status)))
                                                   (plist-get result :edits) ", "))
                               (run-hook-with-args 'tether-task-finished-hook result))
                 :error-fn (lambda (err)
                             (setq tether--task nil)
                             (message "Tether task %s" (if (eql (plist-get err :code) -32800) "cancelled"
                                                         (format "failed: %s" (plist-get err :message))))
                             (run-hook-with-args 'tether-task-finished-hook err)))))
      (setq tether--task (list server (car sent)))
      (message "Tether task started (M-x tether-cancel-task to stop it)"))))

(defun tether-cancel-task ()
  "Cancel the running task: the change being written is undone."
  (interactive)
  (if (not tether--task)
      (message "No Tether task is running")
    (jsonrpc-notify (car tether--task) :$/cancelRequest (list :id (cadr tether--task)))))

;;;###autoload
(defun tether-setup ()
  "Use Tether for Python buffers, and YAML ones when a YAML mode is installed (start it with `eglot-ensure' or
\\[eglot]).  Tether's hooks are buffer-local, in the buffers Tether's server manages."
  (dolist (mode '(python-mode python-ts-mode yaml-mode yaml-ts-mode))
    (when (fboundp mode)
      (add-to-list 'eglot-server-programs (cons mode (cons 'tether-server tether-command)))))
  (add-hook 'eglot-managed-mode-hook #'tether--managed))

(defun tether--managed ()
  "In a buffer Tether's server manages: report the cursor and the active buffer (buffer-local hooks)."
  (if (and eglot--managed-mode (cl-typep (eglot-current-server) 'tether-server))
      (progn
        (add-hook 'post-command-hook #'tether--cursor-moved nil t)
        (add-hook 'window-selection-change-functions #'tether--selected nil t))
    (remove-hook 'post-command-hook #'tether--cursor-moved t)
    (remove-hook 'window-selection-change-functions #'tether--selected t)))

(defun tether--selected (_window)
  (when (eq (current-buffer) (window-buffer (selected-window)))
    (tether-active-editor)))

(provide 'tether)
;;; tether.el ends here
