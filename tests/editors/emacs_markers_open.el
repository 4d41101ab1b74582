;;; Markers in every file opened, through eglot or lsp-mode (TETHER_BACKEND): the teammates' markers of
;;; TETHER_FILE and of TETHER_SHAPES (made before Emacs started) are drawn when each file opens, and again when a
;;; file is closed and opened anew, with nothing else asked for (no `tether-refresh-markers').  The markers list
;;; shows each one's author.
(load (expand-file-name "emacs_backends.el" (file-name-directory load-file-name)) nil t)

(defun tether-test-drawn-within (what seconds)
  "The markers drawn once some are, or an error naming WHAT after SECONDS."
  (tether-test-wait what (lambda () (> (length (tether-test-drawn)) 0)) seconds)
  (tether-test-drawn))

(let ((out (make-hash-table :test 'equal)))
  (condition-case err
      (progn
        (tether-test-open (getenv "TETHER_FILE"))
        (puthash "first" (tether-test-drawn-within "the markers of the first file" 20) out)
        (tether-test-open (getenv "TETHER_SHAPES"))
        (puthash "second" (tether-test-drawn-within "the markers of the second file" 10) out)
        (puthash "listed" (cl-loop for m across tether--markers collect (plist-get m :author)) out)
        (call-interactively #'tether-list-markers)
        (with-current-buffer "*tether-markers*"
          (puthash "columns" (vconcat (mapcar #'car tabulated-list-format)) out)
          (puthash "rows" (vconcat (mapcar #'cadr tabulated-list-entries)) out))
        (kill-buffer (get-file-buffer (getenv "TETHER_SHAPES")))
        (tether-test-open (getenv "TETHER_SHAPES"))
        (puthash "reopened" (tether-test-drawn-within "the markers of the file opened again" 10) out))
    (error (puthash "error" (error-message-string err) out)
           (puthash "messages" (with-current-buffer "*Messages*" (buffer-string)) out)))
  (tether-test-finish out))
