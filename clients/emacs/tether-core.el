;;; tether-core.el --- Tether's connection, positions and edits  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: the settings every feature reads, the
;; connection to the server (what tether-eglot.el and tether-lsp-mode.el
;; provide), requests, LSP positions and URIs, and applying the server's
;; edits.  Every feature file requires it; it requires none of them.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
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

(define-error 'tether-error "Tether")

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

(provide 'tether-core)
;;; tether-core.el ends here
