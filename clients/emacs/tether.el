;;; tether.el --- Tether language server: markers, selectors, playground, tasks  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors

;; Author: The Tether authors
;; Maintainer: The Tether authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages, tools, convenience
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; The Emacs client of Tether, a language server for Python and YAML that keeps
;; notes (markers), structural selections, prompts and AI edits tethered to code
;; while it changes.  It works with eglot (tether-eglot.el) and with lsp-mode
;; (tether-lsp-mode.el); this file holds the commands both share.
;;
;;   (setq tether-command '("/path/to/tether/.venv/bin/tether-lsp"))
;;   (tether-setup 'eglot)   ; or 'lsp-mode: started in every Python and YAML buffer
;;
;; In a buffer the server manages, `tether-mode' is on: markers show as a sign
;; in the margin (fringe on graphical frames) with their note after the line,
;; and the commands are under `tether-keymap-prefix' (C-c ; by default):
;;
;;   a  add a marker (region or line)      e  edit a marker's note (C-u: kind)
;;   d  delete a marker                     l  the file's markers
;;   L  the workspace's markers             s  run a selector chain
;;   ]  the next structural cursor          [  the previous one
;;   r  forget the structural cursors       p  the prompt playground
;;   v  preview a replacement               t  run the @run task on this line
;;   k  cancel the running task             g  read the markers again

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tabulated-list)
(require 'url-util)

(defgroup tether nil
  "The Tether language server."
  :group 'tools
  :prefix "tether-")

(defcustom tether-command '("tether-lsp")
  "How to start the server: the program and its arguments."
  :type '(repeat string))

(defcustom tether-settings nil
  "The `tether' settings section, as a plist.
For example (:database (:url \"postgresql://...\"))."
  :type 'plist)

(defcustom tether-request-timeout 30
  "Seconds to wait for the server's answer to a command."
  :type 'number)

(defcustom tether-marker-signs
  '(("comment" . "…") ("question" . "?") ("issue" . "!") ("bookmark" . "★"))
  "The sign shown in the margin for each marker kind."
  :type '(alist :key-type string :value-type string))

(defcustom tether-marker-fringe-bitmaps
  '(("comment" . right-triangle) ("question" . question-mark)
    ("issue" . exclamation-mark) ("bookmark" . filled-rectangle))
  "The fringe bitmap shown on graphical frames for each marker kind."
  :type '(alist :key-type string :value-type symbol))

(defcustom tether-marker-sign-place 'auto
  "Where a marker's sign goes.
`auto': the fringe on graphical frames, the left margin on terminals;
`margin' or `fringe': always there; nil: no sign."
  :type '(choice (const auto) (const margin) (const fringe) (const nil)))

(defcustom tether-marker-show-note t
  "Whether a marker's note shows after the end of its first line."
  :type 'boolean)

(defcustom tether-marker-show-author t
  "Whether a marker's author shows before its note after its first line.
The help text and the markers list always name it."
  :type 'boolean)

(defconst tether-marker-kinds '("comment" "question" "issue" "bookmark")
  "The kinds a marker can have.")

(defface tether-marker-face '((t :inherit font-lock-comment-face :slant italic))
  "A marker's note after its first line.")
(defface tether-marker-comment-face '((t :inherit font-lock-doc-face))
  "The sign of a comment marker.")
(defface tether-marker-question-face '((t :inherit success))
  "The sign of a question marker.")
(defface tether-marker-issue-face '((t :inherit warning))
  "The sign of an issue marker.")
(defface tether-marker-bookmark-face '((t :inherit font-lock-keyword-face))
  "The sign of a bookmark marker.")

(defvar tether-playground-state nil
  "The last `tether/playground/didChangeState' received.")
(defvar tether-markers-changed-hook nil
  "Run when the server says markers moved (a commit, a teammate).")

(define-error 'tether-error "Tether")

(defvar tether-mode)
(defvar tether--markers-source)
(declare-function project-root "project")

;;; Connections: what eglot and lsp-mode provide

(defvar tether-connection-functions nil
  "Functions returning the current buffer's Tether connection, or nil.
tether-eglot.el and tether-lsp-mode.el add one each.")

(cl-defgeneric tether-backend-request (connection method params)
  "Send METHOD (a string) with PARAMS on CONNECTION and return the result.
The result is a plist (objects), vector (arrays) tree.  A JSON-RPC error
signals `tether-error' with (MESSAGE CODE DATA).")

(cl-defgeneric tether-backend-async (connection method params on-success on-error)
  "Send METHOD with PARAMS on CONNECTION without waiting and no timeout.
Call ON-SUCCESS with the result or ON-ERROR with the error as a plist
\(:code :message :data).  Return the request id, for `tether-backend-cancel'.")

(cl-defgeneric tether-backend-cancel (connection id)
  "Ask CONNECTION's server to cancel the request ID.")

(cl-defgeneric tether-backend-notify (connection method params)
  "Send the notification METHOD with PARAMS on CONNECTION.")

(cl-defgeneric tether-backend-flush (_connection)
  "Send the current buffer's pending changes to the server now."
  nil)

(cl-defgeneric tether-backend-uri (connection file)
  "The URI of FILE, as CONNECTION's client names it to the server.")

(cl-defgeneric tether-backend-position (connection)
  "The LSP position of point in the encoding CONNECTION uses.")

(cl-defgeneric tether-backend-goto (connection position)
  "Move point to the LSP POSITION (a plist) in CONNECTION's encoding.")

(cl-defgeneric tether-backend-version (_connection)
  "The current buffer's document version as the server knows it, or nil."
  nil)

(defun tether-connection ()
  "The current buffer's Tether connection (eglot's or lsp-mode's), or nil."
  (run-hook-with-args-until-success 'tether-connection-functions))

(defun tether--connection ()
  (or (tether-connection)
      (user-error "Tether is not running in this buffer (M-x eglot or M-x lsp)")))

(defun tether-error-message (err)
  "The message of ERR, a `tether-error' (or any error) condition."
  (if (eq (car err) 'tether-error) (cadr err) (error-message-string err)))

(defun tether--error-signal (message code data)
  "Signal a `tether-error' with MESSAGE, CODE and DATA."
  (signal 'tether-error (list (or message "request failed") code data)))

(defun tether-uri (&optional file)
  "The URI of FILE (default: the buffer's file) as the server knows it."
  (tether-backend-uri (tether--connection) (or file (buffer-file-name))))

(defun tether-uri-to-file (uri)
  "The local file name of URI (a string or a keyword, as plist keys are)."
  (when (keywordp uri) (setq uri (substring (symbol-name uri) 1)))
  (let ((name (decode-coding-string
               (url-unhex-string (url-filename (url-generic-parse-url uri))) 'utf-8)))
    (if (and (eq system-type 'windows-nt) (string-match-p "\\`/[A-Za-z]:" name))
        (substring name 1)
      name)))

(defun tether--position (&optional point)
  "The LSP position of POINT (default: point) in the current buffer."
  (let ((connection (tether--connection)))
    (save-excursion (save-restriction
                      (widen)
                      (when point (goto-char point))
                      (tether-backend-position connection)))))

(defun tether--point (position &optional connection)
  "The buffer position of the LSP POSITION."
  (let ((connection (or connection (tether--connection))))
    (save-excursion (save-restriction
                      (widen)
                      (tether-backend-goto connection position)
                      (point)))))

(defun tether--flush ()
  "Send the buffer's pending changes first: the server must see what we see."
  (when-let ((connection (tether-connection)))
    (tether-backend-flush connection)))

(defun tether-request (method params)
  "Send METHOD with PARAMS to the server of this buffer and wait for the answer."
  (let ((connection (tether--connection)))
    (tether-backend-flush connection)
    (tether-backend-request connection method params)))

(defun tether--notify (method params)
  (when-let ((connection (tether-connection)))
    (tether-backend-notify connection method params)))

(defun tether--first-line (text)
  (car (split-string (or text "") "\n")))

;;; Applying the server's edits

(defun tether-apply-workspace-edit (connection edit)
  "Apply the WorkspaceEdit EDIT from CONNECTION's server.
Files are created; buffers are edited; a file that was not visited is
saved and its buffer killed again, so a task's change to a closed file
ends up on disk, not in a hidden modified buffer."
  (let ((changes (plist-get edit :changes))
        (document-changes (plist-get edit :documentChanges))
        (prepared nil))
    (cl-loop for change across (or document-changes [])
             do (if (equal (plist-get change :kind) "create")
                    (let ((path (tether-uri-to-file (plist-get change :uri))))
                      (make-directory (file-name-directory path) t)
                      (unless (file-exists-p path) (write-region "" nil path nil 'silent)))
                  (let ((doc (plist-get change :textDocument)))
                    (push (list (tether-uri-to-file (plist-get doc :uri)) (plist-get change :edits)
                                (plist-get doc :version))
                          prepared))))
    (unless document-changes
      (cl-loop for (uri edits) on changes by #'cddr
               do (push (list (tether-uri-to-file uri) edits nil) prepared)))
    (dolist (item (nreverse prepared))
      (cl-destructuring-bind (path edits version) item
        (let* ((visited (find-buffer-visiting path))
               (buffer (or visited (let ((enable-local-variables nil)) (find-file-noselect path)))))
          (with-current-buffer buffer
            (tether-apply-text-edits connection edits (and visited version))
            ;; say so at once: the server's next piece, or its revert on cancel, is computed on the
            ;; text it knows, and the reply to this request comes after this notification
            (when visited (tether--flush))
            (unless visited
              (let ((save-silently t)) (save-buffer))
              (kill-buffer))))))))

(defun tether-apply-text-edits (connection edits &optional version)
  "Apply the LSP text EDITS (a vector) to the current buffer.
When VERSION is given and CONNECTION knows the buffer's version, they must
be the same.  Point stays where it was."
  (let ((have (and version (tether-backend-version connection))))
    (when (and have (not (equal have version)))
      (error "Edits on `%s' require version %s, you have %s" (buffer-name) version have)))
  ;; from the last edit to the first: the positions of the ones before stay valid; edits at the same
  ;; place keep their order (the later one is inserted first, then the earlier one before it)
  (let ((ordered (sort (cl-loop for e across edits for i from 0 collect (cons i e))
                       (lambda (a b)
                         (let ((sa (plist-get (plist-get (cdr a) :range) :start))
                               (sb (plist-get (plist-get (cdr b) :range) :start)))
                           (or (> (plist-get sa :line) (plist-get sb :line))
                               (and (= (plist-get sa :line) (plist-get sb :line))
                                    (or (> (plist-get sa :character) (plist-get sb :character))
                                        (and (= (plist-get sa :character) (plist-get sb :character))
                                             (> (car a) (car b)))))))))))
    (save-excursion
      (save-restriction
        (widen)
        (dolist (pair ordered)
          (let* ((e (cdr pair)) (range (plist-get e :range))
                 (beg (tether--point (plist-get range :start) connection))
                 (end (tether--point (plist-get range :end) connection)))
            (goto-char beg)
            (delete-region beg end)
            (insert (plist-get e :newText))))))))

;;; Reporting the active buffer and the cursor (the playground follows them)

(defun tether-active-editor ()
  "Tell the server which buffer is active and where the cursor is."
  (when (and (tether-connection) (buffer-file-name))
    (tether--flush)
    (tether--notify "tether/editor/didChangeActiveEditor"
                    (list :textDocument (list :uri (tether-uri)) :position (tether--position)))))

(defvar tether--cursor-timer nil)

(defun tether--cursor-moved ()
  (when (and (tether-connection) (buffer-file-name))
    (when tether--cursor-timer (cancel-timer tether--cursor-timer))
    (let ((buffer (current-buffer)))
      (setq tether--cursor-timer
            (run-with-idle-timer
             0.1 nil
             (lambda ()
               (when (buffer-live-p buffer)
                 (with-current-buffer buffer
                   (when (tether-connection)
                     (tether--flush)
                     (tether--notify "tether/editor/didChangeCursor"
                                     (list :textDocument (list :uri (tether-uri))
                                           :position (tether--position))))))))))))

(defun tether--selected (_window)
  (when (eq (current-buffer) (window-buffer (selected-window)))
    (tether-active-editor)))

;;; Markers in the buffer: a sign in the margin or fringe, the note after the first line

(defvar-local tether--markers nil "The buffer's markers as last listed (a vector of plists).")
(defvar-local tether--margin-set nil "The margin width before Tether widened it, when it did.")

(defun tether--marker-sign (kind)
  "The string put before a marker's first line: its sign, in the margin or fringe."
  (let ((place (if (eq tether-marker-sign-place 'auto)
                   (if (display-graphic-p) 'fringe 'margin)
                 tether-marker-sign-place))
        (face (intern-soft (format "tether-marker-%s-face" kind))))
    (pcase place
      ('margin (propertize " " 'display
                           `((margin left-margin)
                             ,(propertize (or (cdr (assoc kind tether-marker-signs)) "•")
                                          'face (or face 'default)))))
      ('fringe (propertize " " 'display
                           `(left-fringe ,(or (cdr (assoc kind tether-marker-fringe-bitmaps))
                                              'filled-square)
                                         ,(or face 'default)))))))

(defun tether--marker-help (m)
  (format "Tether %s marker by %s: %s" (plist-get m :kind) (plist-get m :author) (plist-get m :note)))

(defun tether--marker-after (m)
  "What follows a marker's first line: its kind, author and note.
The author shows when `tether-marker-show-author' says so."
  (format "  [%s] %s%s" (plist-get m :kind)
          (if (and tether-marker-show-author (plist-get m :author)) (concat (plist-get m :author) ": ") "")
          (tether--first-line (plist-get m :note))))

(defun tether--use-margin (on)
  "Widen the left margin of the buffer's windows for the signs (ON), or restore it."
  (cond ((and on (not tether--margin-set) (eq (if (eq tether-marker-sign-place 'auto)
                                                   (if (display-graphic-p) 'fringe 'margin)
                                                 tether-marker-sign-place)
                                               'margin))
         (setq tether--margin-set (list (or left-margin-width 0)))
         (when (< (or left-margin-width 0) 1) (setq left-margin-width 1)))
        ((and (not on) tether--margin-set)
         (setq left-margin-width (car tether--margin-set) tether--margin-set nil)))
  (dolist (w (get-buffer-window-list (current-buffer) nil t))
    (set-window-margins w left-margin-width right-margin-width)))

(defun tether--draw-markers (markers)
  "Show MARKERS (a vector) in the current buffer.
Each located one gets its sign before its first line, its note after it,
and the note as help (mouse hover, \\[display-local-help])."
  (setq tether--markers markers)
  (remove-overlays (point-min) (point-max) 'tether-marker-overlay t)
  (tether--use-margin (and tether-mode (cl-some (lambda (m) (plist-get m :range)) markers)))
  (save-excursion
    (save-restriction
      (widen)
      (cl-loop for m across markers
               for range = (plist-get m :range)
               when range
               do (let* ((beg (tether--point (plist-get range :start)))
                         (end (max beg (tether--point (plist-get range :end))))
                         (line-end (save-excursion (goto-char beg) (line-end-position)))
                         (line (make-overlay (save-excursion (goto-char beg) (line-beginning-position))
                                             line-end nil t nil))
                         (whole (make-overlay beg end nil t nil))
                         (help (tether--marker-help m)))
                    (dolist (ov (list line whole))
                      (overlay-put ov 'tether-marker-overlay t)
                      (overlay-put ov 'tether-marker m)
                      (overlay-put ov 'help-echo help))
                    (overlay-put line 'before-string (tether--marker-sign (plist-get m :kind)))
                    (when tether-marker-show-note
                      (overlay-put line 'after-string
                                   (propertize (tether--marker-after m)
                                               'face 'tether-marker-face 'help-echo help))))))))

(defun tether--markers-list-sync ()
  "The buffer's markers, read now, and drawn."
  (let ((markers (plist-get (tether-request "tether/markers/list"
                                            (list :textDocument (list :uri (tether-uri))))
                            :markers)))
    (tether--draw-markers markers)
    markers))

;;;###autoload
(defun tether-refresh-markers (&optional buffer)
  "Read BUFFER's markers again (asynchronously) and show them."
  (interactive)
  (with-current-buffer (or buffer (current-buffer))
    (when-let ((connection (and (buffer-file-name) (tether-connection))))
      (let ((buffer (current-buffer)))
        (tether-backend-flush connection)
        (tether-backend-async
         connection "tether/markers/list" (list :textDocument (list :uri (tether-uri)))
         (lambda (result)
           (when (buffer-live-p buffer)
             (with-current-buffer buffer (tether--draw-markers (plist-get result :markers)))))
         (lambda (err)
           (message "Tether: markers of %s: %s" (buffer-name buffer) (plist-get err :message))))))))

(defun tether--markers-changed (uris)
  "The server says the markers of URIS moved: read those buffers' markers again."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and tether-mode (buffer-file-name) (tether-connection)
                 (member (tether-uri) (append uris nil)))
        (tether-refresh-markers))))
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and (derived-mode-p 'tether-markers-mode) (get-buffer-window buffer t))
        (ignore-errors (tether-markers-refresh)))))
  (run-hooks 'tether-markers-changed-hook))

;;; Marker commands

(defun tether--region-or-line ()
  (if (use-region-p)
      (cons (region-beginning) (region-end))
    (cons (line-beginning-position) (line-end-position))))

(defun tether--read-kind (&optional default)
  (let ((default (or default "comment")))
    (completing-read (format-prompt "Kind" default) tether-marker-kinds nil t nil nil default)))

;;;###autoload
(defun tether-add-marker (beg end note &optional kind)
  "Pin NOTE, a marker of KIND (default comment), to the code from BEG to END.
Interactively: the region, or the current line; the kind is asked first,
then the note."
  (interactive
   (let ((r (tether--region-or-line)))
     (tether--connection)
     (let* ((kind (tether--read-kind)) (note (read-string (format "%s note: " (capitalize kind)))))
       (list (car r) (cdr r) note kind))))
  (let ((created (tether-request "tether/markers/create"
                                 (list :textDocument (list :uri (tether-uri))
                                       :range (list :start (tether--position beg)
                                                    :end (tether--position end))
                                       :note note :kind (or kind "comment")))))
    (tether--markers-list-sync)
    (deactivate-mark)
    (let ((first (line-number-at-pos beg t)) (last (line-number-at-pos end t)))
      (message "Tether: %s marker added on %s: %s" (plist-get created :kind)
               (if (= first last) (format "line %d" first) (format "lines %d-%d" first last))
               (tether--first-line note)))
    created))

(defun tether--markers-at-point ()
  (let (found)
    (dolist (ov (overlays-in (line-beginning-position) (line-end-position)))
      (when-let ((m (overlay-get ov 'tether-marker)))
        (when (or (<= (overlay-start ov) (point) (overlay-end ov))
                  (= (overlay-start ov) (overlay-end ov)))
          (cl-pushnew m found :test (lambda (a b) (equal (plist-get a :id) (plist-get b :id)))))))
    (nreverse found)))

(defun tether--marker-label (m)
  (let ((range (plist-get m :range)))
    (format "%s [%s] %s"
            (if range (format "L%d" (1+ (plist-get (plist-get range :start) :line))) "missing")
            (plist-get m :kind) (tether--first-line (plist-get m :note)))))

(defun tether--choose-marker (prompt markers)
  "One of MARKERS, read with completion (none: an error; one: that one)."
  (pcase (length markers)
    (0 (user-error "No Tether marker here"))
    (1 (car markers))
    (_ (let* ((labels (cl-loop for m in markers for i from 1
                               collect (cons (format "%s  (%d)" (tether--marker-label m) i) m)))
              (choice (completing-read prompt labels nil t)))
         (cdr (assoc choice labels))))))

(defun tether--read-marker (prompt)
  "A marker at point, else one of the file's, with completion."
  (tether--choose-marker prompt (or (tether--markers-at-point)
                                    (append (tether--markers-list-sync) nil))))

;;;###autoload
(defun tether-edit-marker (marker note &optional kind)
  "Replace the note of MARKER (a plist) by NOTE; with KIND, its kind too.
Interactively: the marker at point (or one of the file's, with completion);
with a prefix argument the kind is asked too."
  (interactive
   (let* ((m (tether--read-marker "Edit marker: "))
          (kind (and current-prefix-arg (tether--read-kind (plist-get m :kind)))))
     (list m (read-string "Note: " (plist-get m :note)) kind)))
  (let ((updated (tether-request "tether/markers/update"
                                 (append (list :id (plist-get marker :id) :note note)
                                         (and kind (list :kind kind))))))
    (tether--after-marker-change)
    (message "Tether: %s marker updated: %s" (plist-get updated :kind) (tether--first-line note))
    updated))

;;;###autoload
(defun tether-delete-marker (marker)
  "Delete MARKER (a plist).
Interactively: the marker at point (or one of the file's, with completion),
after confirmation."
  (interactive
   (let ((m (tether--read-marker "Delete marker: ")))
     (unless (y-or-n-p (format "Delete marker %s? " (tether--marker-label m)))
       (user-error "Not deleted"))
     (list m)))
  (tether-request "tether/markers/delete" (list :id (plist-get marker :id)))
  (tether--after-marker-change)
  (message "Tether: marker deleted: %s" (tether--first-line (plist-get marker :note)))
  nil)

(defun tether--after-marker-change ()
  "Redraw the markers of this buffer (or the list's source) and the list."
  (if (derived-mode-p 'tether-markers-mode)
      (progn (when (buffer-live-p tether--markers-source)
               (with-current-buffer tether--markers-source
                 (when (buffer-file-name) (tether--markers-list-sync))))
             (dolist (b (buffer-list))
               (with-current-buffer b
                 (when (and tether-mode tether--markers) (tether-refresh-markers))))
             (tether-markers-refresh))
    (tether--markers-list-sync)
    (dolist (b (buffer-list))
      (with-current-buffer b
        (when (derived-mode-p 'tether-markers-mode) (ignore-errors (tether-markers-refresh)))))))

;;; The markers list (a file's or the workspace's)

(defvar-local tether--markers-source nil "The buffer whose markers this list shows.")
(defvar-local tether--markers-scope nil "`file' or `workspace'.")
(defvar-local tether--markers-connection nil "The connection this list asks.")

(defvar tether-markers-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'tether-markers-jump)
    (define-key map (kbd "e") #'tether-markers-edit)
    (define-key map (kbd "d") #'tether-markers-delete)
    (define-key map (kbd "g") #'tether-markers-refresh)
    map)
  "Keys in a markers list: RET jumps, e edits the note, d deletes, g refreshes.")

(define-derived-mode tether-markers-mode tabulated-list-mode "Tether markers"
  "Markers: RET jumps to the code, e edits the note, d deletes, g refreshes.
With a prefix argument, e asks for the kind too.")

(defun tether--markers-entries (markers)
  (cl-loop for m across markers
           collect (let ((r (plist-get m :range)))
                     (list m (vconcat
                              (and (eq tether--markers-scope 'workspace)
                                   (list (file-relative-name (tether-uri-to-file (plist-get m :uri))
                                                             default-directory)))
                              (list (if r (number-to-string (1+ (plist-get (plist-get r :start) :line)))
                                      (format "missing (%s)" (plist-get m :missingReason)))
                                    (plist-get m :kind)
                                    (or (plist-get m :author) "")
                                    (tether--first-line (plist-get m :note))))))))

(defun tether-markers-refresh ()
  "Read the list's markers again."
  (interactive)
  (let ((markers
         (if (eq tether--markers-scope 'workspace)
             (vconcat (cl-loop for f across (plist-get (tether-backend-request
                                                         tether--markers-connection
                                                         "tether/markers/listWorkspace" (make-hash-table))
                                                        :files)
                               append (cl-loop for m across (plist-get f :markers)
                                               collect (if (plist-get m :uri) m
                                                         (plist-put (copy-sequence m) :uri (plist-get f :uri))))))
           (with-current-buffer tether--markers-source (tether--markers-list-sync)))))
    (setq tabulated-list-entries (tether--markers-entries markers))
    (tabulated-list-print t)
    markers))

(defun tether--markers-show (scope source connection directory)
  (with-current-buffer (get-buffer-create (if (eq scope 'workspace) "*tether-markers: workspace*"
                                            "*tether-markers*"))
    (tether-markers-mode)
    (setq tether--markers-scope scope tether--markers-source source
          tether--markers-connection connection default-directory directory)
    (setq tabulated-list-format
          (vconcat (and (eq scope 'workspace) (list '("File" 24 t)))
                   [("Line" 14 t) ("Kind" 9 t) ("Author" 12 t) ("Note" 0 nil)]))
    (tabulated-list-init-header)
    (let ((markers (tether-markers-refresh)))
      (pop-to-buffer (current-buffer))
      markers)))

;;;###autoload
(defun tether-list-markers ()
  "The markers of this file (a vector of plists).
Interactively, shown in a list: RET jumps, e edits, d deletes, g refreshes."
  (interactive)
  (if (called-interactively-p 'any)
      (tether--markers-show 'file (current-buffer) (tether--connection) default-directory)
    (tether--markers-list-sync)))

;;;###autoload
(defun tether-list-workspace-markers ()
  "The markers of every file of the workspace, in a list where RET jumps."
  (interactive)
  (let ((connection (tether--connection)))
    (tether--markers-show 'workspace (current-buffer) connection
                          (or (when-let ((p (project-current))) (project-root p)) default-directory))))

(defun tether--list-marker ()
  (or (tabulated-list-get-id) (user-error "No marker on this line")))

(defun tether-markers-jump ()
  "Go to the code of the marker at point."
  (interactive)
  (let* ((m (tether--list-marker))
         (range (plist-get m :range))
         (connection tether--markers-connection)
         (file (and (plist-get m :uri) (tether-uri-to-file (plist-get m :uri)))))
    (unless range (user-error "This marker's code is gone (%s)" (plist-get m :missingReason)))
    (if (and (eq tether--markers-scope 'file) (buffer-live-p tether--markers-source))
        (pop-to-buffer tether--markers-source)
      (pop-to-buffer (find-file-noselect file)))
    (goto-char (tether--point (plist-get range :start) (or (tether-connection) connection)))))

(defun tether-markers-edit (note &optional kind)
  "Replace the note of the listed marker at point by NOTE (with C-u, the KIND too)."
  (interactive
   (let ((m (tether--list-marker)))
     (list (read-string "Note: " (plist-get m :note))
           (and current-prefix-arg (tether--read-kind (plist-get m :kind))))))
  (tether-backend-request tether--markers-connection "tether/markers/update"
                          (append (list :id (plist-get (tether--list-marker) :id) :note note)
                                  (and kind (list :kind kind))))
  (tether--after-marker-change)
  (message "Tether: marker updated: %s" (tether--first-line note)))

(defun tether-markers-delete ()
  "Delete the listed marker at point, after confirmation."
  (interactive)
  (let ((m (tether--list-marker)))
    (when (y-or-n-p (format "Delete marker %s? " (tether--marker-label m)))
      (tether-backend-request tether--markers-connection "tether/markers/delete"
                              (list :id (plist-get m :id)))
      (tether--after-marker-change)
      (message "Tether: marker deleted: %s" (tether--first-line (plist-get m :note))))))

;;; Structural selection

(defface tether-selection-face '((t :inherit lazy-highlight))
  "The structural cursors' ranges other than the current one (the region).")

(defvar-local tether--cursor-ids nil
  "The structural cursors (node ids) between `tether-select' commands, or nil.")
(defvar-local tether--cursor-ranges nil "The LSP ranges of the structural cursors (a vector).")
(defvar-local tether--cursor-current 0 "The index of the range shown as the region.")
(defvar-local tether--cursor-overlays nil "The highlights of the other ranges.")
(defvar-local tether--cursor-expect nil
  "Where `tether-select' left point: a move elsewhere ends the structural cursors.")

(defconst tether--select-commands '(tether-select tether-select-reset tether-select-next tether-select-previous)
  "The commands that move point among the structural cursors without ending them.")

(defun tether--cursors-forget (&rest _)
  "Forget the structural cursors: an edit, or a move of point not ours."
  (mapc #'delete-overlay tether--cursor-overlays)
  (setq tether--cursor-ids nil tether--cursor-expect nil tether--cursor-ranges nil
        tether--cursor-current 0 tether--cursor-overlays nil))

(defun tether--cursors-check ()
  (when (and tether--cursor-ids (not (eql (point) tether--cursor-expect))
             (not (memq this-command tether--select-commands)))
    (tether--cursors-forget)))

;;;###autoload
(defun tether-select-reset ()
  "Forget the structural cursors of this buffer."
  (interactive)
  (tether--cursors-forget)
  (deactivate-mark))

(defun tether--selectors ()
  (plist-get (tether-request "tether/listSelectors" (make-hash-table)) :selectors))

(defconst tether--position-selectors '("selectAt" "selectRange")
  "Selectors whose arguments are (line, column) pairs, typed as Emacs shows them.")

(defun tether--typed-positions (name numbers)
  "NUMBERS, (line column) pairs typed for NAME as Emacs counts them (lines from 1,
columns from 0 in characters), as the server's LSP positions."
  (save-excursion
    (save-restriction
      (widen)
      (cl-loop for (line column) on numbers by #'cddr
               do (when (< line 1) (user-error "%s: lines count from 1, got %d" name line))
               (when (< column 0) (user-error "%s: columns count from 0, got %d" name column))
               (goto-char (point-min))
               (unless (zerop (forward-line (1- line)))
                 (user-error "%s: line %d is past the end (%d lines)" name line
                             (count-lines (point-min) (point-max))))
               append (let ((pos (tether--position (min (line-end-position) (+ (point) column)))))
                        (list (plist-get pos :line) (plist-get pos :character)))))))

(defun tether--selector-args (listed name text)
  "The arguments of the selector NAME (declared in LISTED) typed as TEXT.
TEXT is what follows the colon: the arguments separated by commas; a last
string argument takes the rest, commas included.  Arguments of type int or
nat become numbers; `selectAt' and `selectRange' positions are converted
from Emacs's lines and columns."
  (let* ((spec (cl-find name listed :key (lambda (s) (plist-get s :name)) :test #'equal))
         (types (mapcar (lambda (a) (plist-get a :type)) (plist-get spec :args)))
         (pieces (cond ((or (null text) (string-empty-p text)) nil)
                       ((and types (equal (car (last types)) "str"))
                        (let ((parts (split-string text ",")) (n (length types)))
                          (if (> (length parts) n)
                              (append (cl-subseq parts 0 (1- n))
                                      (list (mapconcat #'identity (nthcdr (1- n) parts) ",")))
                            parts)))
                       (t (split-string text ","))))
         (args (cl-loop for arg in pieces for k from 0
                        collect (if (and (member (nth k types) '("int" "nat"))
                                         (string-match-p "\\`[ \t]*[-+]?[0-9]+[ \t]*\\'" arg))
                                    (string-to-number arg)
                                  arg))))
    (vconcat (if (and (member name tether--position-selectors) (= (length args) (length types))
                      (cl-every #'integerp args))
                 (tether--typed-positions name args)
               args))))

(defvar tether-select-minibuffer-map
  (let ((map (make-sparse-keymap)))
    (set-keymap-parent map minibuffer-local-map)
    (define-key map (kbd "TAB") #'completion-at-point)
    (define-key map (kbd "M-TAB") #'completion-at-point)
    map)
  "Keys while a selector chain is typed: SPC is a space, TAB completes the word.")

(defvar tether-select-history nil "Selector chains typed before.")

(defun tether--read-chain (names)
  "Read a selector chain: names from NAMES separated by spaces, TAB completing."
  (minibuffer-with-setup-hook
      (lambda ()
        (add-hook 'completion-at-point-functions
                  (lambda ()
                    (let ((beg (save-excursion (skip-chars-backward "^ \t" (minibuffer-prompt-end))
                                               (point))))
                      (list beg (point) names)))
                  nil t))
    (split-string-and-unquote
     (read-from-minibuffer "Selectors (TAB completes): " nil tether-select-minibuffer-map nil
                           'tether-select-history))))

(defun tether--before (a b)
  "Whether the LSP position A is before B."
  (or (< (plist-get a :line) (plist-get b :line))
      (and (= (plist-get a :line) (plist-get b :line)) (< (plist-get a :character) (plist-get b :character)))))

(defun tether--related (ranges was)
  "The index in RANGES to show after a selector: the first inside the range WAS
the user was on, else the first around it, else the first from it on, else 0."
  (let ((n (length ranges)))
    (or (and was
             (or (cl-loop for i below n for r = (aref ranges i)
                          when (and (not (tether--before (plist-get r :start) (plist-get was :start)))
                                    (not (tether--before (plist-get was :end) (plist-get r :end))))
                          return i)
                 (cl-loop for i below n for r = (aref ranges i)
                          when (and (not (tether--before (plist-get was :start) (plist-get r :start)))
                                    (not (tether--before (plist-get r :end) (plist-get was :end))))
                          return i)
                 (cl-loop for i below n for r = (aref ranges i)
                          unless (tether--before (plist-get r :start) (plist-get was :start))
                          return i)))
        0)))

(defun tether--region-range ()
  "The region without the blank space at its ends, as a vector of one LSP range.
A region of whole lines ends at the start of the next line: trimmed, it is
held by the code on those lines, not by what holds the next line too."
  (let* ((beg (save-excursion (goto-char (region-beginning))
                              (skip-chars-forward " \t\n" (region-end)) (point)))
         (end (max beg (save-excursion (goto-char (region-end))
                                       (skip-chars-backward " \t\n" beg) (point)))))
    (vector (list :start (tether--position beg) :end (tether--position end)))))

(defun tether--cursors-show (index)
  "Make range INDEX of the structural cursors the region; highlight the others."
  (mapc #'delete-overlay tether--cursor-overlays)
  (setq tether--cursor-overlays nil tether--cursor-current index)
  (cl-loop for r across tether--cursor-ranges for i from 0
           unless (= i index)
           do (let ((ov (make-overlay (tether--point (plist-get r :start)) (tether--point (plist-get r :end)))))
                (overlay-put ov 'face 'tether-selection-face)
                (overlay-put ov 'tether-selection t)
                (push ov tether--cursor-overlays)))
  (let ((range (aref tether--cursor-ranges index)))
    (push-mark (tether--point (plist-get range :start)) t t)
    (goto-char (tether--point (plist-get range :end)))
    (setq tether--cursor-expect (point))))

(defun tether--cursors-where ()
  "Which structural cursor is the region, and how to step to the others."
  (let ((n (length tether--cursor-ranges)))
    (if (< n 2)
        (format "%d selected" n)
      (format "%d of %d selected (%s next, %s previous)" (1+ tether--cursor-current) n
              (substitute-command-keys "\\[tether-select-next]")
              (substitute-command-keys "\\[tether-select-previous]")))))

;;;###autoload
(defun tether-select (&rest chain)
  "Apply the selector CHAIN to the buffer's structural cursors.
CHAIN is strings like \"selectMethods\", \"filterText:^def\" or
\"selectRange:3,0,9,0\" (arguments after a colon, separated by commas;
positions as Emacs shows them: lines from 1, columns from 0); typed
interactively as one line, separated by spaces (TAB completes a name).
The chain starts from the active region when there are no cursors yet,
else from the whole buffer.  A later call continues from where this one
ended, until point is moved or the buffer edited.  One range becomes the
region, the others are highlighted; \\[tether-select-next] and
\\[tether-select-previous] step through them."
  (interactive (tether--read-chain (mapcar (lambda (s) (plist-get s :name)) (tether--selectors))))
  (add-hook 'after-change-functions #'tether--cursors-forget nil t)
  (add-hook 'post-command-hook #'tether--cursors-check nil t)
  (let* ((ids (or tether--cursor-ids []))
         (was (and tether--cursor-ranges (aref tether--cursor-ranges tether--cursor-current)))
         (start (and (= (length ids) 0) (use-region-p) (tether--region-range)))
         (listed (and chain (tether--selectors)))
         result)
    (catch 'done
      (dolist (step chain)
        (let* ((colon (string-match ":" step))
               (name (if colon (substring step 0 colon) step))
               (args (condition-case err
                         (tether--selector-args listed name (and colon (substring step (1+ colon))))
                       (user-error (message "Tether: %s" (error-message-string err))
                                   (throw 'done (setq result nil))))))
          (setq result (condition-case err
                           (tether-request "tether/applySelector"
                                           (append (list :uri (tether-uri) :cursorNodeIds ids
                                                         :selector name :args args)
                                                   (and start (list :ranges start))))
                         (tether-error (message "Tether: %s: %s" name (tether-error-message err))
                                       (throw 'done (setq result nil)))))
          (setq ids (plist-get result :cursorNodeIds) start nil)
          (when (= (length ids) 0)
            (message "Tether: %s: nothing matched" name)
            (tether--cursors-forget)
            (throw 'done nil)))))
    (when (and result (> (length (plist-get result :cursorNodeIds)) 0))
      (setq tether--cursor-ids (plist-get result :cursorNodeIds)
            tether--cursor-ranges (plist-get result :ranges))
      (tether--cursors-show (tether--related tether--cursor-ranges was))
      (message "Tether: %s" (tether--cursors-where)))
    result))

(defun tether-select-next (&optional n)
  "Make the Nth next structural cursor the region (past the last: the first)."
  (interactive "p")
  (unless tether--cursor-ranges (user-error "No structural cursors here (%s selects)"
                                            (substitute-command-keys "\\[tether-select]")))
  (tether--cursors-show (mod (+ tether--cursor-current (or n 1)) (length tether--cursor-ranges)))
  (message "Tether: %s" (tether--cursors-where)))

(defun tether-select-previous (&optional n)
  "Make the Nth previous structural cursor the region (before the first: the last)."
  (interactive "p")
  (tether-select-next (- (or n 1))))

(defvar tether-select-repeat-map
  (let ((map (make-sparse-keymap)))
    (define-key map "]" #'tether-select-next)
    (define-key map "[" #'tether-select-previous)
    map)
  "With `repeat-mode' on, ] and [ step again after \\[tether-select-next].")
(put 'tether-select-next 'repeat-map 'tether-select-repeat-map)
(put 'tether-select-previous 'repeat-map 'tether-select-repeat-map)

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
  "A replacement preview is shown: TAB accepts it, ESC or C-g rejects it."
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

(defun tether--preview-edited (beg end _len)
  "An edit inside the struck code drops the preview."
  (when-let ((old (car (car tether--preview))))
    (when (and (overlay-start old) (<= (overlay-start old) end) (>= (overlay-end old) beg))
      (tether-preview-reject))))

(defun tether-preview-accept ()
  "Write the previewed replacement."
  (interactive)
  (when-let ((edit (cadr tether--preview)))
    (let ((connection (tether--connection)))
      (tether-preview-reject)
      (tether-apply-text-edits connection (vector edit)))))

;;;###autoload
(defun tether-preview (completion)
  "Ask the server where COMPLETION at point goes and preview it.
A replacement shows the old code struck through, the new block under it;
an insertion is written."
  (interactive "sCompletion: ")
  (let* ((connection (tether--connection))
         (version (tether-backend-version connection))
         (analysis (tether-request "tether/analyzeReplacement"
                                   (list :textDocument (append (list :uri (tether-uri))
                                                               (and version (list :version version)))
                                         :position (tether--position)
                                         :completion completion))))
    (tether-preview-reject)
    (if (and (equal (plist-get analysis :mode) "replace") (eq (plist-get analysis :showVisualDiff) t))
        (let* ((range (plist-get analysis :replaceRange))
               (beg (tether--point (plist-get range :start)))
               (end (tether--point (plist-get range :end)))
               (end (save-excursion (goto-char end)
                                    (if (and (bolp) (> end beg)) (1- end) (line-end-position))))
               (old (make-overlay beg end))
               (new (make-overlay end end))
               (text (string-trim-right (plist-get (plist-get analysis :edit) :newText) "\n")))
          (overlay-put old 'face 'tether-struck-face)
          (overlay-put new 'after-string (concat "\n" (propertize text 'face 'tether-new-face)))
          (setq tether--preview (list (list old new) (plist-get analysis :edit)))
          (add-hook 'after-change-functions #'tether--preview-edited nil t)
          (tether-preview-mode 1))
      (tether-apply-text-edits connection (vector (plist-get analysis :edit))))
    analysis))

;;; Prompt playground

(defvar-local tether--playground-server nil "The connection the playground buffer talks to.")
(defvar tether--playground-values (make-hash-table :test 'equal) "promptId -> alist of (name . value).")
(defvar tether--playground-runs (make-hash-table :test 'equal) "promptId -> the last runs (a vector).")
(defvar tether--playground-outputs (make-hash-table :test 'equal)
  "promptId -> the output of its current or last run in this session.")
(defvar tether--playground-run nil "The running request's id, or nil.")
(defvar tether--playground-running nil "The promptId of the running request, or nil.")

;;;###autoload
(defun tether-playground ()
  "The playground state (a plist).
Interactively, the *tether-playground* buffer: the prompt under the cursor,
its variables (e sets one, saved with the prompt), r runs it with the
answer streaming in, c cancels, p pins."
  (interactive)
  (let ((state (tether-request "tether/playground/getState" (make-hash-table))))
    (setq tether-playground-state state)
    (when (called-interactively-p 'any)
      (let ((server (tether--connection)))
        (with-current-buffer (get-buffer-create "*tether-playground*")
          (tether-playground-mode)
          (setq tether--playground-server server)
          (tether--playground-load)
          (tether--playground-render)
          (display-buffer (current-buffer)))))
    state))

(defvar tether-playground-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "e") #'tether-playground-set-variable)
    (define-key map (kbd "r") #'tether-playground-run)
    (define-key map (kbd "c") #'tether-playground-cancel)
    (define-key map (kbd "p") #'tether-playground-pin)
    (define-key map (kbd "g") #'tether-playground-refresh)
    map)
  "Keys in the playground buffer.")

(define-derived-mode tether-playground-mode special-mode "Tether playground"
  "The prompt under the cursor.
e sets a variable, r runs, c cancels, p pins or unpins, g refreshes.")

(defun tether--playground-state-changed (state)
  "The server sent the playground STATE: show it in the playground buffer."
  (setq tether-playground-state state)
  (when-let ((buffer (get-buffer "*tether-playground*")))
    (with-current-buffer buffer
      (when tether--playground-server
        (ignore-errors (tether--playground-load))
        (tether--playground-render)))))

(defun tether--playground-output (delta)
  "A piece DELTA of the running prompt's answer."
  (when tether--playground-run
    (puthash tether--playground-running
             (concat (gethash tether--playground-running tether--playground-outputs) delta)
             tether--playground-outputs)
    (tether--playground-redraw)))

(defun tether--playground-failure (err)
  "What a failed run (ERR, an error plist) says under the prompt: a missing
variable names the key that sets it."
  (let ((data (plist-get err :data)))
    (cond ((eql (plist-get err :code) -32800) "[cancelled]")
          ((equal (plist-get data :kind) "missingVariable")
           (let ((missing (append (plist-get data :missing) nil)))
             (format "[not run: %s %s no value: press e to set %s, then r]"
                     (mapconcat #'identity missing ", ") (if (cdr missing) "have" "has")
                     (if (cdr missing) "each" "it"))))
          (t (format "[%s]" (plist-get err :message))))))

(defun tether--playground-prompt ()
  (let ((p (plist-get tether-playground-state :prompt))) (and (listp p) p)))

(defun tether--playground-request (method params)
  (tether-backend-request tether--playground-server method params))

(defun tether--playground-stored (method params)
  "METHOD's answer, or nil with the reason in the echo area.
The reason is that the server's database cannot be used."
  (condition-case err
      (tether--playground-request method params)
    (tether-error (message "Tether: %s" (tether-error-message err)) nil)))

(defun tether--playground-load ()
  "Read the selected prompt's saved variables and last runs (once per prompt)."
  (let* ((p (tether--playground-prompt)) (id (plist-get p :promptId)))
    (when (and id (not (gethash id tether--playground-values)))
      (let* ((saved (tether--playground-stored "tether/playground/getSettings" (list :promptId id)))
             (vars (plist-get saved :variables)))
        (puthash id (cl-loop for (k v) on vars by #'cddr when (stringp v)
                             collect (cons (substring (symbol-name k) 1) v))
                 tether--playground-values)
        (puthash id (tether--playground-stored "tether/playground/runs" (list :promptId id :limit 3))
                 tether--playground-runs)))))

(defun tether--playground-render ()
  (let ((inhibit-read-only t) (p (tether--playground-prompt)) (s tether-playground-state))
    (erase-buffer)
    (insert (propertize "Prompts\n" 'face 'bold))
    (cl-loop for item across (or (plist-get s :prompts) [])
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
      (when-let ((output (gethash (plist-get p :promptId) tether--playground-outputs)))
        (insert "\n" (if (and tether--playground-run (equal tether--playground-running (plist-get p :promptId)))
                         "Output (running, c cancels):\n"
                       "Output:\n")
                output "\n"))
      (let ((runs (gethash (plist-get p :promptId) tether--playground-runs)))
        (when (> (length runs) 0)
          (insert "\nRuns:\n")
          (cl-loop for r across runs
                   do (insert (format "  %s %s: %s\n" (plist-get r :createdAt) (plist-get r :model)
                                      (tether--first-line (plist-get r :output))))))))
    (insert "\ne set a variable · r run · c cancel · p pin/unpin · g refresh\n")))

(defun tether--playground-redraw ()
  (when-let ((buffer (get-buffer "*tether-playground*")))
    (with-current-buffer buffer (tether--playground-render))))

(defun tether-playground-refresh ()
  "Read the state again."
  (interactive)
  (setq tether-playground-state (tether--playground-request "tether/playground/getState"
                                                            (make-hash-table)))
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
         (saved (tether--playground-request "tether/playground/getSettings" (list :promptId id)))
         (vars (make-hash-table :test 'equal)))
    (puthash id values tether--playground-values)
    (dolist (pair values) (puthash (car pair) (cdr pair) vars))
    (tether--playground-request "tether/playground/setSettings"
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
      (puthash id "" tether--playground-outputs)
      (setq tether--playground-running id)
      (setq tether--playground-run
            (tether-backend-async
             server "tether/playground/run" (list :promptId id :variables vars)
             (lambda (result)
               (setq tether--playground-run nil tether--playground-running nil)
               (puthash id (plist-get result :output) tether--playground-outputs)
               (puthash id (tether-backend-request server "tether/playground/runs"
                                                   (list :promptId id :limit 3))
                        tether--playground-runs)
               (tether--playground-redraw))
             (lambda (err)
               (let ((said (tether--playground-failure err)))
                 (setq tether--playground-run nil tether--playground-running nil)
                 (puthash id (string-trim-left (concat (gethash id tether--playground-outputs) "\n" said))
                          tether--playground-outputs)
                 (message "Tether: %s" (string-trim said "\\[" "]"))
                 (tether--playground-redraw)))))
      (tether--playground-render))))

(defun tether-playground-cancel ()
  "Cancel the running prompt."
  (interactive)
  (when tether--playground-run
    (tether-backend-cancel tether--playground-server tether--playground-run)))

(defun tether-playground-pin ()
  "Pin the selected prompt, or unpin."
  (interactive)
  (let ((p (tether--playground-prompt)) (pin (plist-get tether-playground-state :pin)))
    (setq tether-playground-state
          (if (listp pin) (if pin (tether--playground-request "tether/playground/unpin" (make-hash-table))
                            (tether--playground-request "tether/playground/pin"
                                                        (list :fileId (plist-get p :fileId)
                                                              :promptId (plist-get p :promptId))))
            tether-playground-state))
    (tether--playground-render)))

;;; Inline tasks

(defvar tether--task nil "The running task: (CONNECTION ID), or nil.")
(defvar tether-task-finished-hook nil
  "Run with the task's result plist when a task ends.
When it failed or was cancelled: an error plist with :code.")

;;;###autoload
(defun tether-run-task ()
  "Run the `@run <instruction>' line under the cursor, asynchronously.
Emacs stays usable, the changes stream in without questions,
`tether-cancel-task' stops it.  There is no client-side timeout (the
server has its own)."
  (interactive)
  (when tether--task (user-error "A Tether task is already running (M-x tether-cancel-task)"))
  (let ((connection (tether--connection)))
    (tether-backend-flush connection)
    (let ((id (tether-backend-async
               connection "tether/tasks/run"
               (list :textDocument (list :uri (tether-uri)) :position (tether--position))
               (lambda (result)
                 (setq tether--task nil)
                 (message "Tether task: %s"
                          (mapconcat (lambda (e) (format "%s: %s" (file-name-nondirectory
                                                                   (tether-uri-to-file (plist-get e :uri)))
                                                         (plist-get e :status)))
                                     (plist-get result :edits) ", "))
                 (run-hook-with-args 'tether-task-finished-hook result))
               (lambda (err)
                 (setq tether--task nil)
                 (message "Tether task %s" (if (eql (plist-get err :code) -32800) "cancelled"
                                             (format "failed: %s" (plist-get err :message))))
                 (run-hook-with-args 'tether-task-finished-hook err)))))
      (setq tether--task (list connection id))
      (message "Tether task started (M-x tether-cancel-task to stop it)"))))

;;;###autoload
(defun tether-cancel-task ()
  "Cancel the running task: the change being written is undone."
  (interactive)
  (if (not tether--task)
      (message "No Tether task is running")
    (tether-backend-cancel (car tether--task) (cadr tether--task))))

;;; The minor mode and its keys

(defvar tether-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "a" #'tether-add-marker)
    (define-key map "e" #'tether-edit-marker)
    (define-key map "d" #'tether-delete-marker)
    (define-key map "l" #'tether-list-markers)
    (define-key map "L" #'tether-list-workspace-markers)
    (define-key map "g" #'tether-refresh-markers)
    (define-key map "s" #'tether-select)
    (define-key map "r" #'tether-select-reset)
    (define-key map "]" #'tether-select-next)
    (define-key map "[" #'tether-select-previous)
    (define-key map "p" #'tether-playground)
    (define-key map "v" #'tether-preview)
    (define-key map "t" #'tether-run-task)
    (define-key map "k" #'tether-cancel-task)
    map)
  "Tether's commands, under `tether-keymap-prefix' in `tether-mode'.")
(fset 'tether-command-map tether-command-map)

(defvar tether-mode-map (make-sparse-keymap)
  "Keys of `tether-mode': `tether-command-map' under `tether-keymap-prefix'.")

(defvar tether--bound-prefix nil "The prefix `tether-mode-map' has now.")

(defcustom tether-keymap-prefix "C-c ;"
  "The key (as `kbd' reads it) under which `tether-mode' puts Tether's commands."
  :type 'string
  :set (lambda (symbol value)
         (when tether--bound-prefix (define-key tether-mode-map (kbd tether--bound-prefix) nil))
         (when value (define-key tether-mode-map (kbd value) 'tether-command-map))
         (setq tether--bound-prefix value)
         (set-default symbol value)))

;;;###autoload
(define-minor-mode tether-mode
  "Tether in this buffer: markers shown, the cursor reported, commands on keys.
Turned on in the buffers Tether's server manages (eglot or lsp-mode).

\\{tether-mode-map}"
  :lighter " Tether"
  :keymap tether-mode-map
  (if tether-mode
      (progn
        (add-hook 'post-command-hook #'tether--cursor-moved nil t)
        (add-hook 'window-selection-change-functions #'tether--selected nil t)
        (add-hook 'after-save-hook #'tether-refresh-markers nil t)
        (tether-refresh-markers))
    (remove-hook 'post-command-hook #'tether--cursor-moved t)
    (remove-hook 'window-selection-change-functions #'tether--selected t)
    (remove-hook 'after-save-hook #'tether-refresh-markers t)
    (remove-overlays (point-min) (point-max) 'tether-marker-overlay t)
    (setq tether--markers nil)
    (tether--use-margin nil)))

(defcustom tether-start-hooks '(python-mode-hook python-ts-mode-hook yaml-mode-hook yaml-ts-mode-hook)
  "The major mode hooks on which `tether-setup' with a client starts Tether."
  :type '(repeat symbol))

(declare-function tether-eglot-setup "tether-eglot")
(declare-function tether-lsp-mode-setup "tether-lsp-mode")

;;;###autoload
(defun tether-setup (&optional client)
  "Use Tether for Python and YAML buffers, with eglot and with lsp-mode.
Whichever of the two is loaded gets Tether registered.  CLIENT `eglot' or
`lsp-mode' also starts Tether in every Python and YAML buffer visited
\=(`eglot-ensure' or `lsp-deferred' on their modes' hooks); without it,
start it with \[eglot] or \[lsp]."
  (with-eval-after-load 'eglot
    (require 'tether-eglot)
    (tether-eglot-setup))
  (with-eval-after-load 'lsp-mode
    (require 'tether-lsp-mode)
    (tether-lsp-mode-setup))
  (when client
    (let ((start (pcase client
                   ('eglot 'eglot-ensure)
                   ('lsp-mode 'lsp-deferred)
                   (_ (user-error "tether-setup: CLIENT is eglot or lsp-mode, not %S" client)))))
      (dolist (hook tether-start-hooks)
        (add-hook hook start)))))

(provide 'tether)
;;; tether.el ends here
