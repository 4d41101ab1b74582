;;; The playground follows the cursor from prompt to prompt, through eglot or lsp-mode (TETHER_BACKEND): a run of
;;; the first prompt of TETHER_FILE, then the cursor on a prompt never run (in the same file, then in
;;; TETHER_OTHER), then back.  Each shows its own output and runs only; a run without a variable's value says
;;; which key sets it; the cursor on a constant's name selects its prompt.  The playground buffer's text is
;;; recorded at each step.
(load (expand-file-name "emacs_backends.el" (file-name-directory load-file-name)) nil t)

(defun tether-test-playground ()
  (with-current-buffer "*tether-playground*" (buffer-substring-no-properties (point-min) (point-max))))

(defun tether-test-cursor-on (file line column anchor)
  "Put the cursor of FILE at LINE (1-based), COLUMN and wait until the playground selects ANCHOR."
  (switch-to-buffer (get-file-buffer file))
  (goto-char (point-min)) (forward-line (1- line)) (forward-char column)
  (tether-active-editor)
  (tether-test-wait (format "the playground on %s" anchor)
                    (lambda () (string-match-p (concat "^" anchor "  \\[") (tether-test-playground)))))

(let ((out (make-hash-table :test 'equal)) (file (getenv "TETHER_FILE")) (other (getenv "TETHER_OTHER")))
  (condition-case err
      (progn
        (tether-test-open other)
        (tether-test-open file)
        (goto-char (point-min)) (forward-char 25)
        (tether-active-editor)
        (call-interactively #'tether-playground)
        (with-current-buffer "*tether-playground*"
          (tether-playground-set-variable "text" "Un café ☕")
          (tether-playground-run)
          (tether-test-wait "the run" (lambda () (not tether--playground-run))))
        (puthash "ran" (tether-test-playground) out)
        ;; a prompt never run, in the same file
        (tether-test-cursor-on file 3 20 "GREETING_PROMPT")
        (puthash "sameFile" (tether-test-playground) out)
        ;; run it without values: the buffer and the echo area say which key sets them
        (with-current-buffer "*tether-playground*"
          (tether-playground-run)
          (tether-test-wait "the refused run" (lambda () (not tether--playground-run))))
        (puthash "missing" (tether-test-playground) out)
        (puthash "missingMessage" (tether-test-last-message) out)
        ;; a prompt never run, in another file
        (tether-test-cursor-on other 1 20 "SUMMARY_PROMPT")
        (puthash "otherFile" (tether-test-playground) out)
        ;; the cursor on a constant's name (not in its string): that prompt, an f-string's {{ }} as braces
        (tether-test-cursor-on other 3 2 "ORDER_PROMPT")
        (puthash "onName" (tether-test-playground) out)
        ;; back on the first prompt: its own output and runs
        (tether-test-cursor-on file 1 25 "TRANSLATE_PROMPT")
        (puthash "back" (tether-test-playground) out))
    (error (puthash "error" (error-message-string err) out)
           (puthash "messages" (with-current-buffer "*Messages*" (buffer-string)) out)))
  (tether-test-finish out))
