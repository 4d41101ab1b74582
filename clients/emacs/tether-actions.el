;;; tether-actions.el --- Tether structural actions  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: the structural actions of `tether/applyAction'
;; (remove, clone, swap, move, bring, move up/down, insert, wrap, unwrap) on
;; the buffer's structural cursors (all of them), else the active region,
;; else the code at point.  The server answers an edit and what it produced;
;; the edit is applied here as one undo step per buffer, after checking that
;; no buffer moved on, and what it produced becomes the region (the cursor's
;; place after remove and insert).  Move, bring and swap take their second
;; place from the mark (`tether-mark'), an overlay with a label.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tether-core)
(require 'tether-select)

(defface tether-mark-face '((t :inherit isearch))
  "The mark: the destination of `tether-move' and `tether-bring'.
Also the other target of `tether-swap'."
  :group 'tether)

(defcustom tether-mark-label " ◆ mark"
  "What shows after the first line of the mark."
  :type 'string
  :group 'tether)

(defconst tether-wrappers '("try" "with" "if" "call")
  "What `tether-wrap' wraps in.
Statements go in try, with or if; an expression in a call.")

(defvar tether--action-mark nil
  "The mark, or nil: a plist (:buffer :ids :version :overlays).
IDS are the structural cursors marked (node ids of the buffer's VERSION),
nil when the mark is the region or point; OVERLAYS hold its ranges as the
buffer changes.")

;;; What an action acts on

(defun tether--action-version (&optional buffer)
  "The document version of BUFFER (default: current) as its server knows it."
  (with-current-buffer (or buffer (current-buffer))
    (or (tether-backend-version (tether--connection))
        (user-error "Tether: the server does not know this buffer's version yet"))))

(defun tether--action-targets ()
  "What an action acts on here, as (TARGETS . RANGES).
The structural cursors (their node ids), else the active region, else point."
  (cond (tether--cursor-ids (cons (list :cursorNodeIds tether--cursor-ids) tether--cursor-ranges))
        ((use-region-p) (let ((ranges (tether--region-range))) (cons (list :ranges ranges) ranges)))
        (t (let* ((here (tether--position)) (ranges (vector (list :start here :end here))))
             (cons (list :ranges ranges) ranges)))))

;;; The mark

(defun tether--unmark ()
  "Forget the mark and remove its overlays."
  (when tether--action-mark
    (mapc #'delete-overlay (plist-get tether--action-mark :overlays))
    (setq tether--action-mark nil)))

(defun tether--mark-live-p ()
  (and tether--action-mark (buffer-live-p (plist-get tether--action-mark :buffer))))

;;;###autoload
(defun tether-mark (&optional forget)
  "Mark the target: the place of `tether-move', `tether-bring', `tether-swap'.
The target is the structural cursors, else the region, else point; it is
highlighted (`tether-mark-face'; at point, the character there) with
`tether-mark-label' after its first line, and the structural cursors are
let go so the next selector picks what to move.  With a prefix argument
FORGET, forget the mark."
  (interactive "P")
  (tether--unmark)
  (if forget
      (message "Tether: mark forgotten")
    (let* ((found (tether--action-targets))
           (ranges (cdr found))
           (overlays nil))
      (cl-loop for r across ranges for i from 0
               do (let* ((beg (tether--point (plist-get r :start)))
                         (end (tether--point (plist-get r :end)))
                         (ov (make-overlay beg end nil (= beg end) nil)))
                    (overlay-put ov 'face 'tether-mark-face)
                    (overlay-put ov 'tether-mark t)
                    (push ov overlays)
                    (when (and (= beg end) (< end (save-excursion (goto-char end) (line-end-position))))
                      ;; a mark at point: the character there shows where it is
                      (let ((spot (make-overlay beg (1+ beg))))
                        (overlay-put spot 'face 'tether-mark-face)
                        (overlay-put spot 'tether-mark-spot t)
                        (push spot overlays)))
                    (when (= i 0)
                      (let ((label (save-excursion (goto-char beg) (line-end-position))))
                        (setq label (make-overlay label label nil t nil))
                        (overlay-put label 'after-string (propertize tether-mark-label 'face 'tether-mark-face))
                        (overlay-put label 'tether-mark-label t)
                        (push label overlays)))))
      (setq tether--action-mark (list :buffer (current-buffer)
                                      :ids (plist-get (car found) :cursorNodeIds)
                                      :version (tether--action-version)
                                      :overlays (nreverse overlays)))
      (tether--cursors-forget)
      (deactivate-mark)
      (message "Tether: marked %d target%s: the place of %s (move), %s (bring), %s (swap)"
               (length ranges) (if (= (length ranges) 1) "" "s")
               (substitute-command-keys "\\[tether-move]")
               (substitute-command-keys "\\[tether-bring]")
               (substitute-command-keys "\\[tether-swap]")))))

(defun tether--mark-destination ()
  "The mark as the request's destination: its node ids while its buffer is
unchanged, else where its overlays are now; `textDocument' when it is in
another buffer."
  (unless (tether--mark-live-p)
    (tether--unmark)
    (user-error "Tether: no mark: %s marks the place first" (substitute-command-keys "\\[tether-mark]")))
  (let* ((buffer (plist-get tether--action-mark :buffer))
         (version (tether--action-version buffer))
         (ids (plist-get tether--action-mark :ids))
         (destination
          (if (and ids (equal version (plist-get tether--action-mark :version)))
              (list :cursorNodeIds ids)
            (with-current-buffer buffer
              (list :ranges
                    (vconcat (cl-loop for ov in (plist-get tether--action-mark :overlays)
                                      when (and (overlay-get ov 'tether-mark) (overlay-buffer ov))
                                      collect (list :start (tether--position (overlay-start ov))
                                                    :end (tether--position (overlay-end ov))))))))))
    (unless (eq buffer (current-buffer))
      (with-current-buffer buffer
        (tether--flush)
        (setq destination (append destination
                                  (list :textDocument (list :uri (tether-uri) :version version))))))
    destination))

;;; Running an action

(defun tether--action-refused (action err)
  "Say why ACTION was not done, from ERR (a `tether-error'), in one line."
  (let* ((message (tether-error-message err))
         (code (nth 2 err))
         (data (nth 3 err))
         (field (and (listp data) (plist-get data :field))))
    (cond ((eql code -32801)
           (tether--cursors-forget)
           (user-error "Tether: %s: the buffer changed since it was selected; select again" action))
          (t
           (when (and (stringp field) (string-prefix-p (concat field ": ") message))
             (setq message (substring message (+ (length field) 2))))
           (user-error "Tether: %s%s: %s" action
                       (if (and (listp data) (equal (plist-get data :kind) "actionRefused")) " refused" "")
                       (tether--first-line message))))))

(defun tether--action-changes (connection edit action)
  "The document changes of EDIT as (BUFFER EDITS), each version checked.
A buffer whose version is not the one the server answered for stops the
action before anything is changed."
  (cl-loop for change across (or (plist-get edit :documentChanges) [])
           collect (let* ((doc (plist-get change :textDocument))
                          (file (tether-uri-to-file (plist-get doc :uri)))
                          (buffer (find-buffer-visiting file)))
                     (unless buffer
                       (user-error "Tether: %s: %s is not open" action (abbreviate-file-name file)))
                     (let ((have (with-current-buffer buffer (tether-backend-version connection))))
                       (unless (or (null (plist-get doc :version)) (equal have (plist-get doc :version)))
                         (user-error "Tether: %s: %s changed meanwhile; nothing was changed"
                                     action (buffer-name buffer))))
                     (list buffer (plist-get change :edits)))))

(defun tether--apply-as-one-step (connection changes)
  "Apply CHANGES, a list of (BUFFER EDITS), as one undo step in each buffer."
  (dolist (change changes)
    (with-current-buffer (car change)
      (undo-boundary)                     ; the step starts here, whatever was typed before
      (atomic-change-group
        (let ((group (prepare-change-group)))
          (tether-apply-text-edits connection (cadr change))
          (undo-amalgamate-change-group group)))
      (undo-boundary)                     ; and ends here, in a buffer other than the current one too
      (tether--flush))))

(defun tether--action-show (action produced)
  "Make the first PRODUCED range the region: in this buffer, else another's.
An empty range, and the spot ACTION insert made, is where point goes."
  (let* ((here (current-buffer))
         (located (cl-loop for loc across (or produced [])
                           for buffer = (find-buffer-visiting (tether-uri-to-file (plist-get loc :uri)))
                           when buffer collect (cons buffer (plist-get loc :range))))
         (shown (or (assq here located) (car located))))
    (when shown
      (unless (eq (car shown) here)
        (with-current-buffer here (deactivate-mark))
        (let ((window (get-buffer-window (car shown))))
          (if window (select-window window) (switch-to-buffer (car shown)))))
      (let ((beg (tether--point (plist-get (cdr shown) :start)))
            (end (tether--point (plist-get (cdr shown) :end))))
        (if (or (= beg end) (equal action "insert"))
            (progn (deactivate-mark) (goto-char beg))
          (push-mark beg t t)
          (goto-char end)
          (setq deactivate-mark nil))))))

(defun tether-action (action &rest options)
  "Run ACTION (\"remove\", \"clone\", …) on the current target.
OPTIONS: :before (clone, move, bring, insert on the other side),
:destination t (the mark's place), :wrapper and :placeholder (wrap),
:targets (instead of the current ones).  Returns the server's answer."
  (let* ((connection (tether--connection))
         (targets (or (plist-get options :targets) (car (tether--action-targets))))
         (params (list :textDocument (list :uri (tether-uri) :version (tether--action-version))
                       :action action :targets targets
                       :after (if (plist-get options :before) :json-false t))))
    (when (plist-get options :destination)
      (setq params (append params (list :destination (tether--mark-destination)))))
    (when-let ((wrapper (plist-get options :wrapper)))
      (setq params (append params (list :wrapper wrapper))))
    (when-let ((placeholder (plist-get options :placeholder)))
      (setq params (append params (list :placeholder placeholder))))
    (let* ((result (condition-case err
                       (tether-request "tether/applyAction" params)
                     (tether-error (tether--action-refused action err))))
           (changes (tether--action-changes connection (plist-get result :edit) action)))
      (when (plist-get options :destination) (tether--unmark))
      (tether--cursors-forget)            ; their ids are of the version before the edit
      (tether--apply-as-one-step connection changes)
      (tether--action-show action (plist-get result :produced))
      result)))

;;; The commands

;;;###autoload
(defun tether-remove ()
  "Remove the target with its comma or its lines.
The target is the structural cursors, else the region, else point."
  (interactive)
  (tether-action "remove"))

;;;###autoload
(defun tether-clone (&optional before)
  "Copy the target after itself (with a prefix argument BEFORE, before it).
The copy becomes the region."
  (interactive "P")
  (tether-action "clone" :before before))

;;;###autoload
(defun tether-move-up ()
  "Exchange the target with its previous sibling; it stays the region."
  (interactive)
  (tether-action "moveUp"))

;;;###autoload
(defun tether-move-down ()
  "Exchange the target with its next sibling; it stays the region."
  (interactive)
  (tether-action "moveDown"))

;;;###autoload
(defun tether-insert (&optional before)
  "Make an empty element or line after the target and put point in it.
With a prefix argument BEFORE, before the target."
  (interactive "P")
  (tether-action "insert" :before before))

;;;###autoload
(defun tether-wrap (wrapper &optional placeholder)
  "Wrap the target in WRAPPER.
Statements go in try, with or if, an expression in a call.
The placeholder (the exception, the context manager, the condition, the
function) becomes the region, to type over; with a prefix argument, read
the PLACEHOLDER text to put there instead."
  (interactive (list (completing-read "Wrap in (try, with, if, call): " tether-wrappers nil t)
                     (and current-prefix-arg (read-string "Text in the placeholder: "))))
  (tether-action "wrap" :wrapper wrapper :placeholder placeholder))

;;;###autoload
(defun tether-unwrap ()
  "Keep the body; drop the if/with/try/for/while, call or parentheses."
  (interactive)
  (tether-action "unwrap"))

;;;###autoload
(defun tether-move (&optional before)
  "Move the target after the mark, also into another buffer.
With a prefix argument BEFORE, before the mark."
  (interactive "P")
  (tether-action "move" :destination t :before before))

;;;###autoload
(defun tether-bring (&optional before)
  "Copy the target after the mark, also into another buffer.
With a prefix argument BEFORE, before the mark."
  (interactive "P")
  (tether-action "bring" :destination t :before before))

;;;###autoload
(defun tether-swap ()
  "Exchange the two structural cursors.
With any other number of them, exchange the target and the mark."
  (interactive)
  (cond ((= (length tether--cursor-ids) 2)
         (tether-action "swap" :targets (list :cursorNodeIds tether--cursor-ids)))
        ((tether--mark-live-p) (tether-action "swap" :destination t))
        (t (user-error "Tether: swap needs two targets: two structural cursors, or %s one first"
                       (substitute-command-keys "\\[tether-mark]")))))

(dolist (command '(tether-remove tether-clone tether-move-up tether-move-down tether-insert tether-wrap
                   tether-unwrap tether-move tether-bring tether-swap))
  ;; the region is what the action produced: the next `undo' undoes the whole action, not the region's part
  (put command 'undo-inhibit-region t))

(defvar tether-action-map
  (let ((map (make-sparse-keymap)))
    (define-key map "k" #'tether-remove)
    (define-key map "c" #'tether-clone)
    (define-key map "s" #'tether-swap)
    (define-key map "m" #'tether-mark)
    (define-key map "v" #'tether-move)
    (define-key map "b" #'tether-bring)
    (define-key map "p" #'tether-move-up)
    (define-key map "n" #'tether-move-down)
    (define-key map "i" #'tether-insert)
    (define-key map "w" #'tether-wrap)
    (define-key map "u" #'tether-unwrap)
    map)
  "Tether's structural actions: c under `tether-keymap-prefix'.")
(fset 'tether-action-map tether-action-map)

(defvar tether-move-repeat-map
  (let ((map (make-sparse-keymap)))
    (define-key map "p" #'tether-move-up)
    (define-key map "n" #'tether-move-down)
    map)
  "Keys that move the target again after it moved up or down.
With `repeat-mode' on, p and n repeat `tether-move-up' and
`tether-move-down'.")
(put 'tether-move-up 'repeat-map 'tether-move-repeat-map)
(put 'tether-move-down 'repeat-map 'tether-move-repeat-map)

(provide 'tether-actions)
;;; tether-actions.el ends here
