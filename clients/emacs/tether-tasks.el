;;; tether-tasks.el --- Tether inline tasks  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: the `@run' task on the cursor's line, run
;; asynchronously (its edits stream in through `tether-apply-workspace-edit'),
;; and cancelling it.

;;; Code:

(require 'tether-core)

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

(provide 'tether-tasks)
;;; tether-tasks.el ends here
