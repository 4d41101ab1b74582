;;; tether-markers.el --- Tether markers: signs, notes and commands  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: markers drawn in the buffer (a sign in the
;; margin or fringe, the note after the first line), the commands that add,
;; edit and delete them, and reading them again when the server says they
;; moved.  The list of a file's or the workspace's markers is
;; tether-markers-list.el.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tether-core)

(defcustom tether-marker-signs
  '(("comment" . "…") ("question" . "?") ("issue" . "!") ("bookmark" . "★"))
  "The sign shown in the margin for each marker kind."
  :type '(alist :key-type string :value-type string)
  :group 'tether)

(defcustom tether-marker-fringe-bitmaps
  '(("comment" . right-triangle) ("question" . question-mark)
    ("issue" . exclamation-mark) ("bookmark" . filled-rectangle))
  "The fringe bitmap shown on graphical frames for each marker kind."
  :type '(alist :key-type string :value-type symbol)
  :group 'tether)

(defcustom tether-marker-sign-place 'auto
  "Where a marker's sign goes.
`auto': the fringe on graphical frames, the left margin on terminals;
`margin' or `fringe': always there; nil: no sign."
  :type '(choice (const auto) (const margin) (const fringe) (const nil))
  :group 'tether)

(defcustom tether-marker-show-note t
  "Whether a marker's note shows after the end of its first line."
  :type 'boolean
  :group 'tether)

(defcustom tether-marker-show-author t
  "Whether a marker's author shows before its note after its first line.
The help text and the markers list always name it."
  :type 'boolean
  :group 'tether)

(defconst tether-marker-kinds '("comment" "question" "issue" "bookmark")
  "The kinds a marker can have.")

(defface tether-marker-face '((t :inherit font-lock-comment-face :slant italic))
  "A marker's note after its first line."
  :group 'tether)
(defface tether-marker-comment-face '((t :inherit font-lock-doc-face))
  "The sign of a comment marker."
  :group 'tether)
(defface tether-marker-question-face '((t :inherit success))
  "The sign of a question marker."
  :group 'tether)
(defface tether-marker-issue-face '((t :inherit warning))
  "The sign of an issue marker."
  :group 'tether)
(defface tether-marker-bookmark-face '((t :inherit font-lock-keyword-face))
  "The sign of a bookmark marker."
  :group 'tether)

(defvar tether-markers-changed-hook nil
  "Run when the server says markers moved (a commit, a teammate).")

(defvar tether-mode)
(defvar tether--markers-source)
(declare-function tether-markers-refresh "tether-markers-list")

;;; Markers in the buffer: a sign in the margin or fringe, the note after the first line

(defvar-local tether--markers nil "The buffer's markers as last listed (a vector of plists).")
(defvar-local tether--margin-set nil "The margin width before Tether widened it, when it did.")

(defun tether--marker-sign (kind)
  "The string put before a marker's first line: its sign, in the margin or fringe."
  (let ((place (if (eq tether-marker-sign-place 'auto)
                   (if (display-graphic-p) 'fringe 'margin)
                 tether-marker-sign-place))
        (face (intern-soft (format "tether-marker-%s-face" kind))))
    (pcase place
      ('margin (propertize " " 'display
                           `((margin left-margin)
                             ,(propertize (or (cdr (assoc kind tether-marker-signs)) "•")
                                          'face (or face 'default)))))
      ('fringe (propertize " " 'display
                           `(left-fringe ,(or (cdr (assoc kind tether-marker-fringe-bitmaps))
                                              'filled-square)
                                         ,(or face 'default)))))))

(defun tether--marker-help (m)
  (format "Tether %s marker by %s: %s" (plist-get m :kind) (plist-get m :author) (plist-get m :note)))

(defun tether--marker-after (m)
  "What follows a marker's first line: its kind, author and note.
The author shows when `tether-marker-show-author' says so."
  (format "  [%s] %s%s" (plist-get m :kind)
          (if (and tether-marker-show-author (plist-get m :author)) (concat (plist-get m :author) ": ") "")
          (tether--first-line (plist-get m :note))))

(defun tether--use-margin (on)
  "Widen the left margin of the buffer's windows for the signs (ON), or restore it."
  (cond ((and on (not tether--margin-set) (eq (if (eq tether-marker-sign-place 'auto)
                                                   (if (display-graphic-p) 'fringe 'margin)
                                                 tether-marker-sign-place)
                                               'margin))
         (setq tether--margin-set (list (or left-margin-width 0)))
         (when (< (or left-margin-width 0) 1) (setq left-margin-width 1)))
        ((and (not on) tether--margin-set)
         (setq left-margin-width (car tether--margin-set) tether--margin-set nil)))
  (dolist (w (get-buffer-window-list (current-buffer) nil t))
    (set-window-margins w left-margin-width right-margin-width)))

(defun tether--draw-markers (markers)
  "Show MARKERS (a vector) in the current buffer.
Each located one gets its sign before its first line, its note after it,
and the note as help (mouse hover, \\[display-local-help])."
  (setq tether--markers markers)
  (remove-overlays (point-min) (point-max) 'tether-marker-overlay t)
  (tether--use-margin (and tether-mode (cl-some (lambda (m) (plist-get m :range)) markers)))
  (save-excursion
    (save-restriction
      (widen)
      (cl-loop for m across markers
               for range = (plist-get m :range)
               when range
               do (let* ((beg (tether--point (plist-get range :start)))
                         (end (max beg (tether--point (plist-get range :end))))
                         (line-end (save-excursion (goto-char beg) (line-end-position)))
                         (line (make-overlay (save-excursion (goto-char beg) (line-beginning-position))
                                             line-end nil t nil))
                         (whole (make-overlay beg end nil t nil))
                         (help (tether--marker-help m)))
                    (dolist (ov (list line whole))
                      (overlay-put ov 'tether-marker-overlay t)
                      (overlay-put ov 'tether-marker m)
                      (overlay-put ov 'help-echo help))
                    (overlay-put line 'before-string (tether--marker-sign (plist-get m :kind)))
                    (when tether-marker-show-note
                      (overlay-put line 'after-string
                                   (propertize (tether--marker-after m)
                                               'face 'tether-marker-face 'help-echo help))))))))

(defun tether--markers-list-sync ()
  "The buffer's markers, read now, and drawn."
  (let ((markers (plist-get (tether-request "tether/markers/list"
                                            (list :textDocument (list :uri (tether-uri))))
                            :markers)))
    (tether--draw-markers markers)
    markers))

;;;###autoload
(defun tether-refresh-markers (&optional buffer)
  "Read BUFFER's markers again (asynchronously) and show them."
  (interactive)
  (with-current-buffer (or buffer (current-buffer))
    (when-let ((connection (and (buffer-file-name) (tether-connection))))
      (let ((buffer (current-buffer)))
        (tether-backend-flush connection)
        (tether-backend-async
         connection "tether/markers/list" (list :textDocument (list :uri (tether-uri)))
         (lambda (result)
           (when (buffer-live-p buffer)
             (with-current-buffer buffer (tether--draw-markers (plist-get result :markers)))))
         (lambda (err)
           (message "Tether: markers of %s: %s" (buffer-name buffer) (plist-get err :message))))))))

(defun tether--markers-changed (uris)
  "The server says the markers of URIS moved: read those buffers' markers again."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and tether-mode (buffer-file-name) (tether-connection)
                 (member (tether-uri) (append uris nil)))
        (tether-refresh-markers))))
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and (derived-mode-p 'tether-markers-mode) (get-buffer-window buffer t))
        (ignore-errors (tether-markers-refresh)))))
  (run-hooks 'tether-markers-changed-hook))

;;; Marker commands

(defun tether--region-or-line ()
  (if (use-region-p)
      (cons (region-beginning) (region-end))
    (cons (line-beginning-position) (line-end-position))))

(defun tether--read-kind (&optional default)
  (let ((default (or default "comment")))
    (completing-read (format-prompt "Kind" default) tether-marker-kinds nil t nil nil default)))

;;;###autoload
(defun tether-add-marker (beg end note &optional kind)
  "Pin NOTE, a marker of KIND (default comment), to the code from BEG to END.
Interactively: the region, or the current line; the kind is asked first,
then the note."
  (interactive
   (let ((r (tether--region-or-line)))
     (tether--connection)
     (let* ((kind (tether--read-kind)) (note (read-string (format "%s note: " (capitalize kind)))))
       (list (car r) (cdr r) note kind))))
  (let ((created (tether-request "tether/markers/create"
                                 (list :textDocument (list :uri (tether-uri))
                                       :range (list :start (tether--position beg)
                                                    :end (tether--position end))
                                       :note note :kind (or kind "comment")))))
    (tether--markers-list-sync)
    (deactivate-mark)
    (let ((first (line-number-at-pos beg t)) (last (line-number-at-pos end t)))
      (message "Tether: %s marker added on %s: %s" (plist-get created :kind)
               (if (= first last) (format "line %d" first) (format "lines %d-%d" first last))
               (tether--first-line note)))
    created))

(defun tether--markers-at-point ()
  (let (found)
    (dolist (ov (overlays-in (line-beginning-position) (line-end-position)))
      (when-let ((m (overlay-get ov 'tether-marker)))
        (when (or (<= (overlay-start ov) (point) (overlay-end ov))
                  (= (overlay-start ov) (overlay-end ov)))
          (cl-pushnew m found :test (lambda (a b) (equal (plist-get a :id) (plist-get b :id)))))))
    (nreverse found)))

(defun tether--marker-label (m)
  (let ((range (plist-get m :range)))
    (format "%s [%s] %s"
            (if range (format "L%d" (1+ (plist-get (plist-get range :start) :line))) "missing")
            (plist-get m :kind) (tether--first-line (plist-get m :note)))))

(defun tether--choose-marker (prompt markers)
  "One of MARKERS, read with completion (none: an error; one: that one)."
  (pcase (length markers)
    (0 (user-error "No Tether marker here"))
    (1 (car markers))
    (_ (let* ((labels (cl-loop for m in markers for i from 1
                               collect (cons (format "%s  (%d)" (tether--marker-label m) i) m)))
              (choice (completing-read prompt labels nil t)))
         (cdr (assoc choice labels))))))

(defun tether--read-marker (prompt)
  "A marker at point, else one of the file's, with completion."
  (tether--choose-marker prompt (or (tether--markers-at-point)
                                    (append (tether--markers-list-sync) nil))))

;;;###autoload
(defun tether-edit-marker (marker note &optional kind)
  "Replace the note of MARKER (a plist) by NOTE; with KIND, its kind too.
Interactively: the marker at point (or one of the file's, with completion);
with a prefix argument the kind is asked too."
  (interactive
   (let* ((m (tether--read-marker "Edit marker: "))
          (kind (and current-prefix-arg (tether--read-kind (plist-get m :kind)))))
     (list m (read-string "Note: " (plist-get m :note)) kind)))
  (let ((updated (tether-request "tether/markers/update"
                                 (append (list :id (plist-get marker :id) :note note)
                                         (and kind (list :kind kind))))))
    (tether--after-marker-change)
    (message "Tether: %s marker updated: %s" (plist-get updated :kind) (tether--first-line note))
    updated))

;;;###autoload
(defun tether-delete-marker (marker)
  "Delete MARKER (a plist).
Interactively: the marker at point (or one of the file's, with completion),
after confirmation."
  (interactive
   (let ((m (tether--read-marker "Delete marker: ")))
     (unless (y-or-n-p (format "Delete marker %s? " (tether--marker-label m)))
       (user-error "Not deleted"))
     (list m)))
  (tether-request "tether/markers/delete" (list :id (plist-get marker :id)))
  (tether--after-marker-change)
  (message "Tether: marker deleted: %s" (tether--first-line (plist-get marker :note)))
  nil)

(defun tether--after-marker-change ()
  "Redraw the markers of this buffer (or the list's source) and the list."
  (if (derived-mode-p 'tether-markers-mode)
      (progn (when (buffer-live-p tether--markers-source)
               (with-current-buffer tether--markers-source
                 (when (buffer-file-name) (tether--markers-list-sync))))
             (dolist (b (buffer-list))
               (with-current-buffer b
                 (when (and tether-mode tether--markers) (tether-refresh-markers))))
             (tether-markers-refresh))
    (tether--markers-list-sync)
    (dolist (b (buffer-list))
      (with-current-buffer b
        (when (derived-mode-p 'tether-markers-mode) (ignore-errors (tether-markers-refresh)))))))

(provide 'tether-markers)
;;; tether-markers.el ends here
