;;; What every batch Emacs session shares: the client loaded and set up against the real server (settings from
;;; TETHER_SETTINGS), `tether-test-start' visiting TETHER_FILE with eglot managing it (a function: `load'
;;; restores the current buffer when it returns), and `tether-test-finish' writing what the session saw to
;;; TETHER_OUT as JSON.
(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(add-to-list 'load-path (getenv "TETHER_EMACS"))
(require 'eglot)
(require 'tether)
(setq tether-command (list (getenv "TETHER_PY") "-m" "tether_lsp"))
(when (getenv "TETHER_SETTINGS")
  (setq tether-settings (json-parse-string (getenv "TETHER_SETTINGS") :object-type 'plist)))
(tether-setup)

(defun tether-test-start ()
  "Visit TETHER_FILE and wait until eglot manages it."
  (find-file (getenv "TETHER_FILE"))
  (python-mode)
  (apply #'eglot (eglot--guess-contact))
  (with-timeout (20 (error "eglot did not start"))
    (while (not (eglot-managed-p)) (accept-process-output nil 0.05))))

(defun tether-test-finish (out)
  "Write OUT (a hash table) to TETHER_OUT and leave Emacs."
  (with-temp-file (getenv "TETHER_OUT") (insert (json-encode out)))
  (kill-emacs 0))
