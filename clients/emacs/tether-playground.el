;;; tether-playground.el --- Tether prompt playground  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: the *tether-playground* buffer, which shows the
;; prompt under the cursor, its variables, its streamed run and its history.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tether-core)

(defvar tether-playground-state nil
  "The last `tether/playground/didChangeState' received.")

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

(provide 'tether-playground)
;;; tether-playground.el ends here
