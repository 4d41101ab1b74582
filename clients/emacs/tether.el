;;; tether.el --- Tether language server for Emacs (eglot)  -*- lexical-binding: t; -*-

;; Registers tether-lsp with eglot for Python and YAML buffers, tells the server about the active buffer and
;; the cursor (prompt playground), and adds commands for markers, selectors and inline tasks.
;;
;;   (add-to-list 'load-path "/path/to/tether/clients/emacs")
;;   (require 'tether)
;;   (setq tether-command '("/path/to/tether/.venv/bin/tether-lsp"))
;;   (tether-setup)
;;
;; Commands: `tether-add-marker' (on the region), `tether-list-markers', `tether-select',
;; `tether-playground', `tether-run-task'.

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
  (setq tether-playground-state state))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/edits/didUpdate)) &rest _)
  nil)

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

(defun tether-list-markers ()
  "The markers of this file (a vector of plists); interactively, shown in a buffer."
  (interactive)
  (let ((markers (plist-get (tether-request :tether/markers/list (list :textDocument (list :uri (tether--uri))))
                            :markers)))
    (when (called-interactively-p 'any)
      (with-current-buffer (get-buffer-create "*tether-markers*")
        (erase-buffer)
        (cl-loop for m across markers
                 do (insert (format "%s  %s\n"
                                    (let ((r (plist-get m :range)))
                                      (if r (format "line %d" (1+ (plist-get (plist-get r :start) :line))) "missing"))
                                    (plist-get m :note))))
        (display-buffer (current-buffer))))
    markers))

(defun tether-select (&rest chain)
  "Run the selector CHAIN (strings like \"selectFunctions\" or \"filterText:^def\") and go to the first range."
  (interactive (split-string (read-string "Selectors: ")))
  (let ((ids []) result)
    (catch 'done
      (dolist (step chain)
        (let* ((colon (string-match ":" step))
               (name (if colon (substring step 0 colon) step))
               (args (if colon (vector (substring step (1+ colon))) [])))
          (setq result (tether-request :tether/applySelector
                                       (list :uri (tether--uri) :cursorNodeIds ids :selector name :args args)))
          (setq ids (plist-get result :cursorNodeIds))
          (when (= (length ids) 0) (throw 'done nil)))))
    (when (and result (> (length (plist-get result :ranges)) 0))
      (goto-char (eglot--lsp-position-to-point (plist-get (aref (plist-get result :ranges) 0) :start))))
    result))

(defun tether-playground ()
  "The playground state (the prompt under the cursor, the file's prompts)."
  (interactive)
  (let ((state (tether-request :tether/playground/getState (make-hash-table))))
    (when (called-interactively-p 'any)
      (message "%s" (or (plist-get (plist-get state :prompt) :preview) "no prompt under the cursor")))
    state))

(defun tether-run-task ()
  "Run the `@run <instruction>' line under the cursor."
  (interactive)
  (tether-request :tether/tasks/run (list :textDocument (list :uri (tether--uri)) :position (tether--position))))

;;;###autoload
(defun tether-setup ()
  "Use Tether for Python and YAML buffers (start it with `eglot-ensure' or \\[eglot])."
  (dolist (mode '(python-mode python-ts-mode yaml-mode yaml-ts-mode))
    (add-to-list 'eglot-server-programs (cons mode (cons 'tether-server tether-command))))
  (add-hook 'buffer-list-update-hook #'tether-active-editor)
  (add-hook 'post-command-hook #'tether--cursor-moved))

(provide 'tether)
;;; tether.el ends here
