;;; tether-markers-list.el --- Tether markers list  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: a file's or the workspace's markers in a
;; tabulated list, where RET jumps to the code, e edits, d deletes and g
;; reads them again.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tabulated-list)
(require 'tether-core)
(require 'tether-markers)

(declare-function project-root "project")

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

(provide 'tether-markers-list)
;;; tether-markers-list.el ends here
