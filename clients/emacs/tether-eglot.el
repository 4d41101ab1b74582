;;; tether-eglot.el --- Tether through eglot  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: registers tether-lsp with eglot for Python and
;; YAML buffers and carries Tether's requests over eglot's connection.
;; `tether-setup' loads it when eglot is loaded.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'url-util)
(require 'tether)

(defclass tether-server (eglot-lsp-server) ()
  :documentation "Tether: eglot plus the experimental capabilities it opts into.")

(cl-defmethod eglot-client-capabilities ((server tether-server))
  "Opt into multi-line inline completion ranges (Emacs applies them correctly)."
  (append (cl-call-next-method server)
          (list :experimental (list :tether (list :multilineInlineCompletionRange t)))))

(cl-defmethod eglot-initialization-options ((_server tether-server))
  (list :tether (or tether-settings (make-hash-table))))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/markers/didChange))
                                         &key uris &allow-other-keys)
  (tether--markers-changed uris))

(cl-defmethod eglot-handle-notification ((_server tether-server)
                                         (_method (eql tether/playground/didChangeState)) &rest state)
  (tether--playground-state-changed state))

(cl-defmethod eglot-handle-notification ((_server tether-server)
                                         (_method (eql tether/playground/didRunOutput))
                                         &key delta &allow-other-keys)
  (tether--playground-output delta))

(cl-defmethod eglot-handle-notification ((_server tether-server) (_method (eql tether/edits/didUpdate))
                                         &rest _)
  nil)

(cl-defmethod eglot-handle-request ((server tether-server) (_method (eql workspace/applyEdit))
                                    &key _label edit)
  "Tether's own edits (a task's changes streaming in), applied without asking.
Eglot would ask \"Server wants to edit … Proceed?\" for every piece.  Only
for Tether's server: other servers still ask as configured."
  (tether-apply-workspace-edit server edit)
  (list :applied t))

;;; The connection Tether's commands use

(defun tether-eglot--method (method)
  "METHOD (a string) as jsonrpc.el names methods: a keyword."
  (intern (concat ":" method)))

(defun tether-eglot--signal (err)
  "Signal ERR, a `jsonrpc-error' condition, as a `tether-error'."
  (let ((data (cdr err)))
    (tether--error-signal (alist-get 'jsonrpc-error-message data)
                          (alist-get 'jsonrpc-error-code data)
                          (alist-get 'jsonrpc-error-data data))))

(cl-defmethod tether-backend-request ((server tether-server) method params)
  (condition-case err
      (jsonrpc-request server (tether-eglot--method method) params :timeout tether-request-timeout)
    (jsonrpc-error (tether-eglot--signal err))))

(cl-defmethod tether-backend-async ((server tether-server) method params on-success on-error)
  ;; `jsonrpc-async-request' returns nil; the function it calls returns (ID TIMER), and the id is what
  ;; $/cancelRequest needs.  No public function gives it.
  (car (jsonrpc--async-request-1 server (tether-eglot--method method) params
                                 :timeout nil :success-fn on-success :error-fn on-error)))

(cl-defmethod tether-backend-cancel ((server tether-server) id)
  (jsonrpc-notify server :$/cancelRequest (list :id id)))

(cl-defmethod tether-backend-notify ((server tether-server) method params)
  (jsonrpc-notify server (tether-eglot--method method) params))

(cl-defmethod tether-backend-flush ((_server tether-server))
  ;; eglot sends a buffer's changes when Emacs is idle; nothing public sends them now
  (when (and (eglot-managed-p) (fboundp 'eglot--signal-textDocument/didChange))
    (funcall #'eglot--signal-textDocument/didChange)))

(defconst tether-eglot--uri-chars
  (let ((chars (copy-sequence url-path-allowed-chars))) (aset chars ?: nil) chars)
  "The characters eglot leaves as they are in a file URI.")

(cl-defmethod tether-backend-uri ((_server tether-server) file)
  (if (fboundp 'eglot-path-to-uri)        ; eglot 1.16 and later
      (funcall #'eglot-path-to-uri file)
    (let ((true (file-truename file)))    ; as eglot 1.9 names files
      (concat "file://" (if (and (eq system-type 'windows-nt) (not (file-remote-p true))) "/")
              (url-hexify-string (directory-file-name (file-local-name true)) tether-eglot--uri-chars)))))

(defun tether-eglot--linepos-variable (current)
  "Eglot's variable for the column function: CURRENT, else the one that moves."
  (if (boundp 'eglot-current-linepos-function)          ; eglot 1.12 and later
      (if current 'eglot-current-linepos-function 'eglot-move-to-linepos-function)
    (if current 'eglot-current-column-function 'eglot-move-to-column-function)))

(cl-defmethod tether-backend-position ((_server tether-server))
  (list :line (1- (line-number-at-pos nil t))
        :character (funcall (symbol-value (tether-eglot--linepos-variable t)))))

(cl-defmethod tether-backend-goto ((_server tether-server) position)
  (goto-char (point-min))
  (forward-line (plist-get position :line))
  (unless (eobp)
    (let ((tab-width 1))
      (funcall (symbol-value (tether-eglot--linepos-variable nil)) (plist-get position :character)))))

(cl-defmethod tether-backend-version ((_server tether-server))
  ;; the version eglot gave the buffer's last change; eglot has no public accessor for it
  (and (boundp 'eglot--versioned-identifier) (symbol-value 'eglot--versioned-identifier)))

(defun tether-eglot-connection ()
  "The eglot server of the current buffer when it is Tether's."
  (when (eglot-managed-p)
    (let ((server (eglot-current-server)))
      (and (cl-typep server 'tether-server) server))))

(defun tether-eglot--managed ()
  "In a buffer Tether's server manages: `tether-mode' on; else off."
  (if (tether-eglot-connection)
      (tether-mode 1)
    (when tether-mode (tether-mode -1))))

(defun tether-eglot-contact (&optional _interactive)
  "How eglot starts Tether: the class and `tether-command'."
  (cons 'tether-server tether-command))

(defun tether-eglot-setup ()
  "Register Tether with eglot for Python, and YAML when a YAML mode is installed."
  (dolist (mode '(python-mode python-ts-mode yaml-mode yaml-ts-mode))
    (add-to-list 'eglot-server-programs (cons mode #'tether-eglot-contact)))
  (add-hook 'tether-connection-functions #'tether-eglot-connection)
  (add-hook 'eglot-managed-mode-hook #'tether-eglot--managed))

(provide 'tether-eglot)
;;; tether-eglot.el ends here
