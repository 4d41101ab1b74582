;;; The playground buffer in batch Emacs, through eglot or lsp-mode (TETHER_BACKEND): the prompt under the cursor,
;;; a variable set, a run whose answer streams in and lands in the history, the variable read back from the server
;;; for a fresh buffer.
(load (expand-file-name "emacs_backends.el" (file-name-directory load-file-name)) nil t)
(tether-test-open (getenv "TETHER_FILE"))
(let ((out (make-hash-table :test 'equal)) (partial nil))
  (condition-case err
      (progn
        (goto-char (point-min)) (forward-char 25)
        (tether-active-editor)
        (call-interactively #'tether-playground)
        (with-current-buffer "*tether-playground*"
          (puthash "opened" (buffer-string) out)
          (tether-playground-set-variable "text" "Un café ☕")
          (puthash "afterSet" (buffer-string) out)
          (tether-playground-run)
          (with-timeout (15 (error "the run did not end"))
            (while tether--playground-run
              (when (and (not partial) (string-match-p "Traduction" (buffer-string))) (setq partial (buffer-string)))
              (accept-process-output nil 0.01)))
          (puthash "sawStreaming" (if partial t :json-false) out)
          (puthash "finished" (buffer-string) out))
        (kill-buffer "*tether-playground*")
        (clrhash tether--playground-values)   ; as after a restart: only the server knows the values now
        (call-interactively #'tether-playground)
        (puthash "reopened" (with-current-buffer "*tether-playground*" (buffer-string)) out))
    (error (puthash "error" (error-message-string err) out)))
  (tether-test-finish out))
