;;; Structural actions in TETHER_FILE (non-ASCII Python) and TETHER_OTHER, through eglot or lsp-mode
;;; (TETHER_BACKEND), run as keys run them: each step records the buffer's text after the command, the region (or
;;; point), then one `undo' (as C-/ right after the command, the region still active) and the text after it.
;;; Refusals are recorded as the echo area's last message.
(load (expand-file-name "emacs_backends.el" (file-name-directory load-file-name)) nil t)

(defvar tether-test-steps (make-hash-table :test 'equal))

(defun tether-test-text (&optional buffer)
  (with-current-buffer (or buffer (current-buffer))
    (buffer-substring-no-properties (point-min) (point-max))))

(defun tether-test-selected ()
  "The active region's text, or nil."
  (and (region-active-p) (buffer-substring-no-properties (region-beginning) (region-end))))

(defun tether-test-point ()
  "Point as the mode line shows it: (LINE COLUMN), columns in characters from 0."
  (list (line-number-at-pos) (- (point) (line-beginning-position))))

(defun tether-test-after-command ()
  "What the command loop does after a command: the undo boundary, the region deactivated when the command
asked for it (`deactivate-mark'), the post-command hooks."
  (undo-boundary)
  (when deactivate-mark (deactivate-mark))
  (setq deactivate-mark nil)
  (tether--cursors-check))

(defun tether-test-act (command &optional prefix &rest args)
  "Run COMMAND as a key would (PREFIX as its prefix argument, ARGS instead of its prompts); a `user-error' is
shown as the command loop shows it, in the echo area."
  (undo-boundary)
  (condition-case err
      (let ((this-command command) (current-prefix-arg prefix))
        (if args (apply command args) (call-interactively command)))
    (user-error (message "%s" (error-message-string err))))
  (setq last-command command)
  (tether-test-after-command))

(defun tether-test-type (text)
  "Type TEXT over the region (as `delete-selection-mode' does) or at point: a command of its own."
  (undo-boundary)
  (when (region-active-p) (delete-region (region-beginning) (region-end)))
  (insert text)
  (setq deactivate-mark t last-command 'self-insert-command)
  (tether-test-after-command))

(defun tether-test-undo ()
  "C-/ once."
  (let ((this-command 'undo)) (undo))
  (setq last-command 'undo)
  (tether-test-after-command))

(defun tether-test-at (pattern &optional buffer)
  "Point on the first PATTERN of the buffer, a move of the user's own (the structural cursors go)."
  (when buffer (switch-to-buffer buffer))
  (deactivate-mark)
  (goto-char (point-min))
  (search-forward pattern)
  (goto-char (match-beginning 0))
  (setq last-command 'next-line)
  (let ((this-command 'next-line)) (tether--cursors-check)))

(defun tether-test-open-another (file)
  "Visit FILE in the project whose server runs already: eglot manages it by itself, lsp-mode when asked."
  (find-file file)
  (unless (eq tether-test-backend 'eglot) (lsp))
  (tether-test-wait "tether-mode in the second file" (lambda () tether-mode)))

(defun tether-test-record (name)
  "What the last action left, then one undo and the text after it, under NAME."
  (let ((step (list :after (tether-test-text) :selected (tether-test-selected) :point (tether-test-point))))
    (tether-test-undo)
    (puthash name (append step (list :undone (tether-test-text))) tether-test-steps)))

(defun tether-test-mark-overlays ()
  "The mark's overlays: how many ranges, and the label's text."
  (let ((all (overlays-in (point-min) (point-max))))
    (list (cl-count-if (lambda (ov) (overlay-get ov 'tether-mark)) all)
          (cl-loop for ov in all when (overlay-get ov 'tether-mark-label)
                   return (substring-no-properties (overlay-get ov 'after-string))))))

(let ((out (make-hash-table :test 'equal)))
  (condition-case err
      (let (main other)
        (tether-test-open (getenv "TETHER_OTHER"))
        (setq other (current-buffer))
        (tether-test-open-another (getenv "TETHER_FILE"))
        (setq main (current-buffer))
        (transient-mark-mode 1)           ; as in an interactive Emacs: the region is active
        (puthash "original" (tether-test-text) out)
        (puthash "keys" (mapcar (lambda (k) (key-binding (kbd k)))
                                '("C-c ; c k" "C-c ; c c" "C-c ; c s" "C-c ; c m" "C-c ; c v" "C-c ; c b"
                                  "C-c ; c p" "C-c ; c n" "C-c ; c i" "C-c ; c w" "C-c ; c u"))
                 out)

        (tether-test-at "retries")
        (tether-test-act #'tether-remove)
        (tether-test-record "remove")

        (tether-select "selectFunctions" "selectFirst")
        (tether-test-act #'tether-clone)
        (tether-test-record "clone")

        (tether-test-at "devise")
        (tether-test-act #'tether-clone '(4))
        (tether-test-record "cloneBefore")

        ;; the two parameters of 取得 as structural cursors (its line as the region): exchanging them would put
        ;; `url' after a default
        (tether-test-at "def 取得")
        (push-mark (point) t t) (end-of-line)
        (tether-select "selectParameters")
        (puthash "twoCursors" (length tether--cursor-ids) out)
        (tether-test-act #'tether-swap)
        (puthash "refused" (list :text (tether-test-text) :message (tether-test-last-message)
                                 :cursors (length tether--cursor-ids))
                 out)
        (tether-test-act #'tether-remove) ; both cursors at once
        (tether-test-record "removeBoth")

        (tether-test-at "prix(1")
        (tether-test-act #'tether-mark)
        (puthash "markShown" (tether-test-mark-overlays) out)
        (puthash "markMessage" (tether-test-last-message) out)
        (tether-test-at "🎉\"")
        (tether-test-act #'tether-swap)
        (puthash "markAfterSwap" (car (tether-test-mark-overlays)) out)
        (tether-test-record "swapWithMark")

        (tether-test-at "def 取得")
        (tether-test-act #'tether-mark)
        (tether-select "selectFunctions" "selectFirst")
        (tether-test-act #'tether-move)
        (tether-test-record "move")

        (tether-test-at "def prix")
        (tether-test-act #'tether-mark)
        (tether-test-at "def 取得")
        (tether-test-act #'tether-bring '(4))
        (tether-test-record "bringBefore")

        (tether-test-at "prix(1")
        (tether-test-act #'tether-move-up)
        (puthash "moveUpFirst" (list :text (tether-test-text) :message (tether-test-last-message)) out)

        ;; down, down again on what it produced (the region), up: each one undo step
        (tether-test-at "prix(1")
        (tether-test-act #'tether-move-down)
        (let ((once (list :after (tether-test-text) :selected (tether-test-selected))))
          (tether-test-act #'tether-move-down)
          (let ((twice (list :after (tether-test-text) :selected (tether-test-selected))))
            (tether-test-act #'tether-move-up)
            (let ((up (list :after (tether-test-text) :selected (tether-test-selected))))
              (tether-test-undo)
              (let ((undone-up (tether-test-text)))
                (tether-test-undo)
                (let ((undone-twice (tether-test-text)))
                  (tether-test-undo)
                  (puthash "repeated" (list :once once :twice twice :up up :undoneUp undone-up
                                            :undoneTwice undone-twice :undoneOnce (tether-test-text))
                           out))))))

        ;; lsp-mode's code actions at point: the server's Move down (the first argument has no Move up), applied
        ;; by lsp-mode itself as one undo step
        (when (eq tether-test-backend 'lsp-mode)
          (tether-test-at "prix(1")
          (let ((actions (lsp-code-actions-at-point)))
            (undo-boundary)
            (lsp-execute-code-action (car actions))
            (setq last-command 'lsp-execute-code-action)
            (tether-test-after-command)
            (let ((after (tether-test-text)))
              (tether-test-undo)
              (puthash "codeActions" (list :titles (mapcar (lambda (a) (lsp:code-action-title a)) actions)
                                           :after after :undone (tether-test-text))
                       out))))

        ;; insert: an empty line after the statement, point in it; what is typed is a step of its own
        (tether-test-at "total =")
        (tether-test-act #'tether-insert)
        (puthash "insertPoint" (list (tether-test-point) (tether-test-selected)
                                     (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
                 out)
        (tether-test-type "x = \"ü\"")
        (puthash "inserted" (tether-test-text) out)
        (tether-test-undo)
        (puthash "insertTypedUndone" (tether-test-text) out)
        (tether-test-undo)
        (puthash "insertUndone" (tether-test-text) out)
        (tether-test-at "prix(1")
        (tether-test-act #'tether-insert '(4))
        (tether-test-type "\"ñ\"")
        (puthash "insertedBefore" (tether-test-text) out)
        (tether-test-undo) (tether-test-undo)

        (tether-test-at "total =")
        (tether-test-act #'tether-wrap nil "try")
        (tether-test-record "wrapTry")
        (tether-test-at "total =")
        (tether-test-act #'tether-wrap nil "if" "base > 0")
        (tether-test-record "wrapIf")
        (tether-test-at "return url")
        (search-forward "url") (goto-char (match-beginning 0))
        (tether-test-act #'tether-wrap nil "call")
        (puthash "callPlaceholder" (tether-test-selected) out)
        (tether-test-type "len")
        (puthash "called" (tether-test-text) out)
        (tether-test-at "len(url)")
        (tether-test-act #'tether-unwrap)
        (puthash "unwrapped" (tether-test-text) out)
        (tether-test-undo) (tether-test-undo) (tether-test-undo)
        (puthash "unwrapUndone" (tether-test-text) out)

        ;; into another buffer: the mark in TETHER_OTHER, a function of this one moved after it
        (tether-test-at "def other" other)
        (tether-test-act #'tether-mark)
        (tether-test-at "def 取得" main)
        (tether-test-act #'tether-move)
        (let ((across (list :main (tether-test-text main) :other (tether-test-text other)
                            :inOther (eq (current-buffer) other) :selected (tether-test-selected)
                            :mainRegion (with-current-buffer main (region-active-p)))))
          (tether-test-undo)              ; C-/ where the moved code now is
          (setq across (append across (list :otherUndone (tether-test-text other)
                                            :mainBeforeUndo (tether-test-text main))))
          (switch-to-buffer main)
          (setq last-command 'switch-to-buffer)
          (tether-test-undo)
          (puthash "across" (append across (list :mainUndone (tether-test-text main))) out))

        ;; the buffer changes after the server answered (a timer, a process's output): nothing is applied
        (tether-test-at "def prix")
        (let ((typed (lambda (result) (with-current-buffer main
                                        (save-excursion (goto-char (point-min)) (insert "# ü\n")))
                       result)))
          (advice-add 'tether-request :filter-return typed)
          (unwind-protect (tether-test-act #'tether-remove)
            (advice-remove 'tether-request typed)))
        (puthash "stale" (list :message (tether-test-last-message) :text (tether-test-text)) out)
        (tether-test-undo)

        ;; a selector that finds nothing keeps the cursors
        (tether-test-at "def prix")
        (let ((this-command 'tether-select)) (tether-select "selectFunctions"))
        (tether-test-after-command)
        (let ((this-command 'tether-select)) (tether-select "selectDecorators"))
        (tether-test-after-command)
        (puthash "nothing" (list :cursors (length tether--cursor-ids) :message (tether-test-last-message)
                                 :selected (tether-test-selected))
                 out)
        (puthash "steps" tether-test-steps out)
        (puthash "final" (tether-test-text main) out))
    (error (puthash "error" (error-message-string err) out)
           (puthash "messages" (with-current-buffer "*Messages*" (buffer-string)) out)))
  (tether-test-finish out))
