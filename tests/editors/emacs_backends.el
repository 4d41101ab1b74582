;;; Batch Emacs with Tether's server managing buffers through eglot or lsp-mode (TETHER_BACKEND, default eglot):
;;; what the scripts that run on both clients share.  Loads emacs_start.el (the client set up, settings from
;;; TETHER_SETTINGS, `tether-test-finish').
(load (expand-file-name "emacs_start.el" (file-name-directory load-file-name)) nil t)
(defvar tether-test-backend (intern (or (getenv "TETHER_BACKEND") "eglot")))

(when (eq tether-test-backend 'lsp-mode)
  ;; only Tether's client, the project root guessed (no question), nothing lsp-mode would add on its own
  (setq lsp-client-packages nil lsp-enabled-clients '(tether) lsp-auto-guess-root t
        lsp-session-file (expand-file-name "lsp-session" (getenv "HOME"))
        lsp-enable-file-watchers nil lsp-keep-workspace-alive nil lsp-restart 'ignore
        lsp-headerline-breadcrumb-enable nil lsp-modeline-code-actions-enable nil lsp-lens-enable nil
        lsp-enable-snippet nil)
  (require 'lsp-mode))

(defun tether-test-wait (what predicate &optional seconds)
  "Spin until PREDICATE is true; an error naming WHAT after SECONDS (default 20)."
  (with-timeout ((or seconds 20) (error "Timed out waiting for %s" what))
    (while (not (funcall predicate)) (accept-process-output nil 0.05))))

(defun tether-test-open (file)
  "Visit FILE with Tether's server managing it (eglot or lsp-mode), `tether-mode' on."
  (find-file file)
  (python-mode)
  (if (eq tether-test-backend 'eglot)
      (apply #'eglot (eglot--guess-contact))
    (lsp))
  (tether-test-wait "tether-mode" (lambda () tether-mode)))

(defun tether-test-drawn ()
  "The drawn markers: [LINE SIGN-PLACE SIGN NOTE HELP] for each first-line overlay, in buffer order."
  (let (seen)
    (dolist (ov (overlays-in (point-min) (point-max)))
      (when (overlay-get ov 'before-string)
        (let ((sign (get-text-property 0 'display (overlay-get ov 'before-string))))
          (push (list (line-number-at-pos (overlay-start ov))
                      (format "%S" (car sign)) (substring-no-properties (cadr sign))
                      (substring-no-properties (or (overlay-get ov 'after-string) ""))
                      (overlay-get ov 'help-echo))
                seen))))
    (vconcat (sort seen (lambda (a b) (< (car a) (car b)))))))

(defun tether-test-last-message ()
  "The last line of *Messages*."
  (with-current-buffer "*Messages*"
    (goto-char (point-max)) (forward-line -1)
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
