;;; tether-lsp-mode.el --- Tether through lsp-mode  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: registers tether-lsp as an lsp-mode client for
;; Python and YAML buffers (an add-on: it runs beside another Python server)
;; and carries Tether's requests over lsp-mode's connection.  `tether-setup'
;; loads it when lsp-mode is loaded.

;;; Code:

(require 'cl-lib)
(require 'url-util)
(require 'lsp-mode)
(require 'tether)

(cl-defstruct (tether-lsp-connection (:constructor tether-lsp-connection--make (workspace)))
  "Tether's server as lsp-mode runs it: an lsp-mode workspace."
  workspace)

(defvar tether-lsp-mode--connections (make-hash-table :test 'eq :weakness 'key)
  "lsp-mode workspace -> its `tether-lsp-connection' (the same object each time).")

(defun tether-lsp-mode--connection-of (workspace)
  (or (gethash workspace tether-lsp-mode--connections)
      (puthash workspace (tether-lsp-connection--make workspace) tether-lsp-mode--connections)))

(defun tether-lsp-mode--opened-in (workspace)
  "Whether WORKSPACE's server has the current buffer open.
`lsp-workspaces' is not enough: a buffer opened in a server that already
runs is told to it (and `tether-lsp-mode--opened' runs) before lsp-mode
sets the buffer's workspaces, so the buffer is found among the ones
WORKSPACE opened."
  (or (memq workspace (lsp-workspaces))
      (memq (current-buffer) (lsp--workspace-buffers workspace))))

(defun tether-lsp-mode-connection ()
  "The current buffer's connection to Tether's server through lsp-mode, or nil."
  (when (and (or (bound-and-true-p lsp-mode) (bound-and-true-p lsp-managed-mode)) (buffer-file-name))
    (let ((workspace (lsp-find-workspace 'tether (buffer-file-name))))
      (and workspace (tether-lsp-mode--opened-in workspace)
           (tether-lsp-mode--connection-of workspace)))))

(defun tether-lsp-mode--plist (value)
  "VALUE as lsp-mode parsed it (hash tables, or plists) as plists and vectors."
  (cond ((hash-table-p value)
         (let (plist)
           (maphash (lambda (k v)
                      (push (if (keywordp k) k (intern (concat ":" (format "%s" k)))) plist)
                      (push (tether-lsp-mode--plist v) plist))
                    value)
           (nreverse plist)))
        ((vectorp value) (vconcat (mapcar #'tether-lsp-mode--plist value)))
        ((and (consp value) (keywordp (car value)))
         (cl-loop for (k v) on value by #'cddr append (list k (tether-lsp-mode--plist v))))
        (t value)))

(defun tether-lsp-mode--send (connection method params on-success on-error)
  "Send METHOD on CONNECTION's workspace only; return the request id.
The answer is taken as the server sent it (:no-merge): lsp-mode's merge
of several servers' answers turns an array into a list."
  (with-lsp-workspace (tether-lsp-connection-workspace connection)
    (plist-get (lsp-request-async method params
                                  (lambda (answers)
                                    (funcall on-success (tether-lsp-mode--plist (cdar answers))))
                                  :error-handler (lambda (err) (funcall on-error (tether-lsp-mode--plist err)))
                                  :mode 'detached :no-merge t)
               :id)))

(cl-defmethod tether-backend-request ((connection tether-lsp-connection) method params)
  (let* ((done nil) (result nil) (failure nil)
         (deadline (+ (float-time) tether-request-timeout)))
    (tether-lsp-mode--send connection method params
                           (lambda (r) (setq result r done t))
                           (lambda (e) (setq failure e done t)))
    (while (not done)
      (when (> (float-time) deadline)
        (tether--error-signal (format "Timed out waiting for %s" method) nil nil))
      (accept-process-output nil 0.05))
    (if failure
        (tether--error-signal (plist-get failure :message) (plist-get failure :code)
                              (plist-get failure :data))
      result)))

(cl-defmethod tether-backend-async ((connection tether-lsp-connection) method params on-success on-error)
  (tether-lsp-mode--send connection method params on-success on-error))

(cl-defmethod tether-backend-cancel ((connection tether-lsp-connection) id)
  ;; the request's own handlers stay: the server's answer (-32800) reaches them
  (tether-backend-notify connection "$/cancelRequest" (list :id id)))

(cl-defmethod tether-backend-notify ((connection tether-lsp-connection) method params)
  (with-lsp-workspace (tether-lsp-connection-workspace connection)
    (lsp-notify method params)))

(defconst tether-lsp-mode--uri-chars
  (let ((chars (make-vector 256 nil)))
    (dolist (c (cons ?/ url-unreserved-chars)) (aset chars c t))
    chars)
  "The characters lsp-mode leaves as they are in a file URI.")

(cl-defmethod tether-backend-uri ((_connection tether-lsp-connection) file)
  ;; as lsp-mode names a buffer's file
  (let ((path (expand-file-name file)))
    (concat (if (eq system-type 'windows-nt) "file:///" "file://")
            (url-hexify-string (or (file-remote-p path 'localname t) path) tether-lsp-mode--uri-chars))))

;; lsp-mode counts columns in characters; the client offers the server UTF-32 (below), which counts the same.
(cl-defmethod tether-backend-position ((_connection tether-lsp-connection))
  (list :line (1- (line-number-at-pos nil t)) :character (- (point) (line-beginning-position))))

(cl-defmethod tether-backend-goto ((_connection tether-lsp-connection) position)
  (goto-char (point-min))
  (forward-line (plist-get position :line))
  (goto-char (min (line-end-position) (+ (point) (plist-get position :character)))))

(cl-defmethod tether-backend-version ((_connection tether-lsp-connection))
  ;; the version lsp-mode gave the buffer's last change; lsp-mode has no public accessor for it
  (and (boundp 'lsp--cur-version) (symbol-value 'lsp--cur-version)))

;;; The client

(defun tether-lsp-mode--handlers (alist)
  (let ((table (make-hash-table :test 'equal)))
    (pcase-dolist (`(,method . ,fn) alist) (puthash method fn table))
    table))

(defun tether-lsp-mode--apply-edit (workspace params)
  "workspace/applyEdit from Tether: applied as with eglot, without questions."
  (condition-case err
      (progn (tether-apply-workspace-edit (tether-lsp-mode--connection-of workspace)
                                          (plist-get (tether-lsp-mode--plist params) :edit))
             (list :applied t))
    (error (list :applied :json-false :failureReason (error-message-string err)))))

(defun tether-lsp-mode--opened ()
  "Tether's server opened this buffer: `tether-mode' on."
  (tether-mode 1))

(defun tether-lsp-mode--stopped (_workspace)
  "A server stopped: `tether-mode' off where Tether is gone."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and tether-mode (not (tether-connection)))
        (tether-mode -1)))))

(defun tether-lsp-mode-setup ()
  "Register Tether as an lsp-mode client (an add-on) for Python and YAML."
  (lsp-register-client
   (make-lsp-client
    :new-connection (lsp-stdio-connection (lambda () tether-command))
    :activation-fn (lsp-activate-on "python" "yaml")
    :server-id 'tether
    :add-on? t
    :priority -1
    :initialization-options (lambda () (list :tether (or tether-settings (make-hash-table))))
    :custom-capabilities '((general . ((positionEncodings . ["utf-32"]))))
    :notification-handlers
    (tether-lsp-mode--handlers
     `(("tether/markers/didChange"
        . ,(lambda (_workspace params)
             (tether--markers-changed (plist-get (tether-lsp-mode--plist params) :uris))))
       ("tether/playground/didChangeState"
        . ,(lambda (_workspace params) (tether--playground-state-changed (tether-lsp-mode--plist params))))
       ("tether/playground/didRunOutput"
        . ,(lambda (_workspace params)
             (tether--playground-output (plist-get (tether-lsp-mode--plist params) :delta))))
       ("tether/edits/didUpdate" . ignore)))
    :request-handlers (tether-lsp-mode--handlers `(("workspace/applyEdit" . tether-lsp-mode--apply-edit)))
    :after-open-fn #'tether-lsp-mode--opened))
  (add-hook 'tether-connection-functions #'tether-lsp-mode-connection)
  (add-hook 'lsp-after-uninitialized-functions #'tether-lsp-mode--stopped))

(provide 'tether-lsp-mode)
;;; tether-lsp-mode.el ends here
