;;; Markers, selectors and the workspace list in batch Emacs, through eglot or lsp-mode (TETHER_BACKEND): a
;;; marker made by a teammate before Emacs started shows when the file opens; the commands read their input
;;; (kind, note, confirmation, selector chain) from stdin as batch Emacs does; a teammate's new marker shows
;;; when the server says markers changed.  Writes TETHER_READY when it listens for the teammate.
(load (expand-file-name "emacs_backends.el" (file-name-directory load-file-name)) nil t)
(defvar tether-test-logged "")

;; the server's log lines, to know when it listens for other servers
(with-eval-after-load 'tether-eglot
  (cl-defmethod eglot-handle-notification :before ((_ tether-server) (_ (eql window/logMessage))
                                                   &key message &allow-other-keys)
    (setq tether-test-logged (concat tether-test-logged message "\n"))))
(with-eval-after-load 'lsp-mode
  (advice-add 'lsp--window-log-message :before
              (lambda (_workspace params)
                (setq tether-test-logged (concat tether-test-logged (gethash "message" params) "\n")))))

(let ((out (make-hash-table :test 'equal)))
  (condition-case err
      (progn
        (tether-test-open (getenv "TETHER_FILE"))
        ;; the teammate's marker, made before Emacs started: shown once the file is open, nothing listed
        (tether-test-wait "the markers at open" (lambda () (> (length (tether-test-drawn)) 0)))
        (puthash "atOpen" (tether-test-drawn) out)
        (puthash "margin" left-margin-width out)
        ;; a marker on lines 4-8: the kind and the note asked for, a message says what was added
        (transient-mark-mode 1)           ; as in an interactive Emacs: the region is active
        (goto-char (point-min)) (forward-line 3) (push-mark (point) t t)
        (forward-line 4) (end-of-line)
        (call-interactively #'tether-add-marker)
        (puthash "added" (tether-test-last-message) out)
        (puthash "afterAdd" (tether-test-drawn) out)
        ;; edit the note of the marker at point (line 5 is inside it), delete the one on line 1
        (goto-char (point-min)) (forward-line 4)
        (call-interactively #'tether-edit-marker)
        (puthash "edited" (tether-test-last-message) out)
        (goto-char (point-min))
        (call-interactively #'tether-delete-marker)
        (puthash "deleted" (tether-test-last-message) out)
        (puthash "afterEdit" (tether-test-drawn) out)
        (puthash "listed" (cl-loop for m across (tether-list-markers)
                                   collect (vector (plist-get m :kind) (plist-get m :note)))
                 out)
        ;; the workspace's markers: this file's and shapes.py's, in a list
        (call-interactively #'tether-list-workspace-markers)
        (puthash "workspace" (with-current-buffer "*tether-markers: workspace*"
                               (vconcat (mapcar #'cadr tabulated-list-entries)))
                 out)
        (with-current-buffer "*tether-markers: workspace*"
          (goto-char (point-min))
          (while (and (not (eobp)) (not (equal (aref (tabulated-list-get-entry) 0) "shapes.py")))
            (forward-line 1))
          (tether-markers-jump)
          (puthash "jumped" (list (buffer-name) (line-number-at-pos)) out))
        (switch-to-buffer (get-file-buffer (getenv "TETHER_FILE")))
        ;; a selector chain typed as one line; then a selector error
        (goto-char (point-min))
        (let ((sel (call-interactively #'tether-select)))
          (puthash "selected" (length (plist-get sel :ranges)) out)
          (puthash "region" (buffer-substring-no-properties (region-beginning) (region-end)) out))
        (tether-select "selectNth:first")
        (puthash "selectError" (tether-test-last-message) out)
        ;; a teammate adds a marker to this file: the server says so, the buffer shows it
        (tether-test-wait "the server listening" (lambda () (string-match-p "listening for other servers"
                                                                              tether-test-logged)))
        (with-temp-file (getenv "TETHER_READY") (insert "ready"))
        (tether-test-wait "the teammate's marker"
                          (lambda () (cl-some (lambda (d) (string-match-p "from a teammate" (nth 3 d)))
                                              (tether-test-drawn))))
        (puthash "afterTeammate" (tether-test-drawn) out))
    (error (puthash "error" (error-message-string err) out)
           (puthash "messages" (with-current-buffer "*Messages*" (buffer-string)) out)))
  (tether-test-finish out))
