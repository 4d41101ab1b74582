;;; Structural selection in TETHER_SHAPES, through eglot or lsp-mode (TETHER_BACKEND): a selector with several
;;; arguments typed after a colon, separated by commas; the region as the start of a chain; stepping to the next
;;; and previous match (the others highlighted), and a chain continuing from the match stepped to.
(load (expand-file-name "emacs_backends.el" (file-name-directory load-file-name)) nil t)

(defun tether-test-region ()
  (buffer-substring-no-properties (region-beginning) (region-end)))

(defun tether-test-highlighted ()
  "The text of each highlighted structural cursor, in buffer order."
  (vconcat (mapcar (lambda (ov) (buffer-substring-no-properties (overlay-start ov) (overlay-end ov)))
                   (sort (cl-remove-if-not (lambda (ov) (overlay-get ov 'tether-selection))
                                           (overlays-in (point-min) (point-max)))
                         (lambda (a b) (< (overlay-start a) (overlay-start b)))))))

(defun tether-test-step (command &optional n)
  "Run COMMAND as a key would (with N as its prefix), then the check a command loop runs after it."
  (let ((this-command command) (current-prefix-arg n))
    (call-interactively command)
    (tether--cursors-check)))

(let ((out (make-hash-table :test 'equal)))
  (condition-case err
      (progn
        (tether-test-open (getenv "TETHER_SHAPES"))
        (transient-mark-mode 1)           ; as in an interactive Emacs: the region is active
        (puthash "keys" (vector (key-binding (kbd "C-c ; ]")) (key-binding (kbd "C-c ; ["))) out)
        ;; several arguments: Square.side, lines 10 to 11 as the mode line counts them (columns from 0)
        (goto-char (point-min))
        (let ((sel (tether-select "selectRange:10,0,11,21")))
          (puthash "range" (length (plist-get sel :cursorNodeIds)) out)
          (puthash "rangeMessage" (tether-test-last-message) out)
          (puthash "rangeRegion" (and sel (tether-test-region)) out))
        (tether-select-reset)
        (let ((sel (tether-select "selectAt:13,8")))
          (puthash "at" (and sel (tether-test-region)) out))
        (tether-select-reset)
        (tether-select "selectRange:10,0")
        (puthash "rangeWrongCount" (tether-test-last-message) out)
        (tether-select-reset)
        ;; the region (Square, lines 9-14) as the start: its methods only
        (goto-char (point-min)) (forward-line 8) (push-mark (point) t t) (goto-char (point-max))
        (let ((sel (tether-select "selectMethods")))
          (puthash "fromRegion" (length (plist-get sel :cursorNodeIds)) out)
          (puthash "fromRegionFirst" (tether-test-region) out))
        (tether-select-reset)
        ;; the four methods: the first is the region, the other three highlighted
        (goto-char (point-min))
        (tether-select "selectMethods")
        (puthash "selectedMessage" (tether-test-last-message) out)
        (puthash "current" (tether-test-region) out)
        (puthash "highlighted" (tether-test-highlighted) out)
        (tether-test-step #'tether-select-next)
        (puthash "next" (tether-test-region) out)
        (puthash "nextMessage" (tether-test-last-message) out)
        (puthash "nextHighlighted" (length (tether-test-highlighted)) out)
        (tether-test-step #'tether-select-previous 2)   ; from the second, two back: the last (wraps around)
        (puthash "previous" (tether-test-region) out)
        (puthash "previousMessage" (tether-test-last-message) out)
        (puthash "cursorsKept" (length tether--cursor-ids) out)
        ;; the chain goes on from the match stepped to
        (tether-select "selectName")
        (puthash "name" (list (tether-test-region) (line-number-at-pos)) out)
        ;; a move of the user's own ends the cursors and their highlights
        (goto-char (point-min))
        (let ((this-command 'next-line)) (tether--cursors-check))
        (puthash "afterMove" (vector (length tether--cursor-ids) (length (tether-test-highlighted))) out))
    (error (puthash "error" (error-message-string err) out)
           (puthash "messages" (with-current-buffer "*Messages*" (buffer-string)) out)))
  (tether-test-finish out))
