;;; tether-select.el --- Tether structural selection  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: selector chains run from the buffer or the
;; region, the structural cursors they leave (one the region, the others
;; highlighted) and stepping through them.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'tether-core)

;;; Structural selection

(defface tether-selection-face '((t :inherit lazy-highlight))
  "The structural cursors' ranges other than the current one (the region)."
  :group 'tether)

(defvar-local tether--cursor-ids nil
  "The structural cursors (node ids) between `tether-select' commands, or nil.")
(defvar-local tether--cursor-ranges nil "The LSP ranges of the structural cursors (a vector).")
(defvar-local tether--cursor-current 0 "The index of the range shown as the region.")
(defvar-local tether--cursor-overlays nil "The highlights of the other ranges.")
(defvar-local tether--cursor-expect nil
  "Where `tether-select' left point: a move elsewhere ends the structural cursors.")

(defconst tether--select-commands '(tether-select tether-select-reset tether-select-next tether-select-previous)
  "The commands that move point among the structural cursors without ending them.")

(defun tether--cursors-forget (&rest _)
  "Forget the structural cursors: an edit, or a move of point not ours."
  (mapc #'delete-overlay tether--cursor-overlays)
  (setq tether--cursor-ids nil tether--cursor-expect nil tether--cursor-ranges nil
        tether--cursor-current 0 tether--cursor-overlays nil))

(defun tether--cursors-check ()
  (when (and tether--cursor-ids (not (eql (point) tether--cursor-expect))
             (not (memq this-command tether--select-commands)))
    (tether--cursors-forget)))

;;;###autoload
(defun tether-select-reset ()
  "Forget the structural cursors of this buffer."
  (interactive)
  (tether--cursors-forget)
  (deactivate-mark))

(defun tether--selectors ()
  (plist-get (tether-request "tether/listSelectors" (make-hash-table)) :selectors))

(defconst tether--position-selectors '("selectAt" "selectRange")
  "Selectors whose arguments are (line, column) pairs, typed as Emacs shows them.")

(defun tether--typed-positions (name numbers)
  "NUMBERS, (line column) pairs typed for NAME as Emacs counts them (lines from 1,
columns from 0 in characters), as the server's LSP positions."
  (save-excursion
    (save-restriction
      (widen)
      (cl-loop for (line column) on numbers by #'cddr
               do (when (< line 1) (user-error "%s: lines count from 1, got %d" name line))
               (when (< column 0) (user-error "%s: columns count from 0, got %d" name column))
               (goto-char (point-min))
               (unless (zerop (forward-line (1- line)))
                 (user-error "%s: line %d is past the end (%d lines)" name line
                             (count-lines (point-min) (point-max))))
               append (let ((pos (tether--position (min (line-end-position) (+ (point) column)))))
                        (list (plist-get pos :line) (plist-get pos :character)))))))

(defun tether--selector-args (listed name text)
  "The arguments of the selector NAME (declared in LISTED) typed as TEXT.
TEXT is what follows the colon: the arguments separated by commas; a last
string argument takes the rest, commas included.  Arguments of type int or
nat become numbers; `selectAt' and `selectRange' positions are converted
from Emacs's lines and columns."
  (let* ((spec (cl-find name listed :key (lambda (s) (plist-get s :name)) :test #'equal))
         (types (mapcar (lambda (a) (plist-get a :type)) (plist-get spec :args)))
         (pieces (cond ((or (null text) (string-empty-p text)) nil)
                       ((and types (equal (car (last types)) "str"))
                        (let ((parts (split-string text ",")) (n (length types)))
                          (if (> (length parts) n)
                              (append (cl-subseq parts 0 (1- n))
                                      (list (mapconcat #'identity (nthcdr (1- n) parts) ",")))
                            parts)))
                       (t (split-string text ","))))
         (args (cl-loop for arg in pieces for k from 0
                        collect (if (and (member (nth k types) '("int" "nat"))
                                         (string-match-p "\\`[ \t]*[-+]?[0-9]+[ \t]*\\'" arg))
                                    (string-to-number arg)
                                  arg))))
    (vconcat (if (and (member name tether--position-selectors) (= (length args) (length types))
                      (cl-every #'integerp args))
                 (tether--typed-positions name args)
               args))))

(defvar tether-select-minibuffer-map
  (let ((map (make-sparse-keymap)))
    (set-keymap-parent map minibuffer-local-map)
    (define-key map (kbd "TAB") #'completion-at-point)
    (define-key map (kbd "M-TAB") #'completion-at-point)
    map)
  "Keys while a selector chain is typed: SPC is a space, TAB completes the word.")

(defvar tether-select-history nil "Selector chains typed before.")

(defun tether--read-chain (names)
  "Read a selector chain: names from NAMES separated by spaces, TAB completing."
  (minibuffer-with-setup-hook
      (lambda ()
        (add-hook 'completion-at-point-functions
                  (lambda ()
                    (let ((beg (save-excursion (skip-chars-backward "^ \t" (minibuffer-prompt-end))
                                               (point))))
                      (list beg (point) names)))
                  nil t))
    (split-string-and-unquote
     (read-from-minibuffer "Selectors (TAB completes): " nil tether-select-minibuffer-map nil
                           'tether-select-history))))

(defun tether--before (a b)
  "Whether the LSP position A is before B."
  (or (< (plist-get a :line) (plist-get b :line))
      (and (= (plist-get a :line) (plist-get b :line)) (< (plist-get a :character) (plist-get b :character)))))

(defun tether--related (ranges was)
  "The index in RANGES to show after a selector: the first inside the range WAS
the user was on, else the first around it, else the first from it on, else 0."
  (let ((n (length ranges)))
    (or (and was
             (or (cl-loop for i below n for r = (aref ranges i)
                          when (and (not (tether--before (plist-get r :start) (plist-get was :start)))
                                    (not (tether--before (plist-get was :end) (plist-get r :end))))
                          return i)
                 (cl-loop for i below n for r = (aref ranges i)
                          when (and (not (tether--before (plist-get was :start) (plist-get r :start)))
                                    (not (tether--before (plist-get r :end) (plist-get was :end))))
                          return i)
                 (cl-loop for i below n for r = (aref ranges i)
                          unless (tether--before (plist-get r :start) (plist-get was :start))
                          return i)))
        0)))

(defun tether--region-range ()
  "The region without the blank space at its ends, as a vector of one LSP range.
A region of whole lines ends at the start of the next line: trimmed, it is
held by the code on those lines, not by what holds the next line too."
  (let* ((beg (save-excursion (goto-char (region-beginning))
                              (skip-chars-forward " \t\n" (region-end)) (point)))
         (end (max beg (save-excursion (goto-char (region-end))
                                       (skip-chars-backward " \t\n" beg) (point)))))
    (vector (list :start (tether--position beg) :end (tether--position end)))))

(defun tether--cursors-show (index)
  "Make range INDEX of the structural cursors the region; highlight the others."
  (mapc #'delete-overlay tether--cursor-overlays)
  (setq tether--cursor-overlays nil tether--cursor-current index)
  (cl-loop for r across tether--cursor-ranges for i from 0
           unless (= i index)
           do (let ((ov (make-overlay (tether--point (plist-get r :start)) (tether--point (plist-get r :end)))))
                (overlay-put ov 'face 'tether-selection-face)
                (overlay-put ov 'tether-selection t)
                (push ov tether--cursor-overlays)))
  (let ((range (aref tether--cursor-ranges index)))
    (push-mark (tether--point (plist-get range :start)) t t)
    (goto-char (tether--point (plist-get range :end)))
    (setq tether--cursor-expect (point))))

(defun tether--cursors-where ()
  "Which structural cursor is the region, and how to step to the others."
  (let ((n (length tether--cursor-ranges)))
    (if (< n 2)
        (format "%d selected" n)
      (format "%d of %d selected (%s next, %s previous)" (1+ tether--cursor-current) n
              (substitute-command-keys "\\[tether-select-next]")
              (substitute-command-keys "\\[tether-select-previous]")))))

;;;###autoload
(defun tether-select (&rest chain)
  "Apply the selector CHAIN to the buffer's structural cursors.
CHAIN is strings like \"selectMethods\", \"filterText:^def\" or
\"selectRange:3,0,9,0\" (arguments after a colon, separated by commas;
positions as Emacs shows them: lines from 1, columns from 0); typed
interactively as one line, separated by spaces (TAB completes a name).
The chain starts from the active region when there are no cursors yet,
else from the whole buffer.  A later call continues from where this one
ended, until point is moved or the buffer edited.  One range becomes the
region, the others are highlighted; \\[tether-select-next] and
\\[tether-select-previous] step through them."
  (interactive (tether--read-chain (mapcar (lambda (s) (plist-get s :name)) (tether--selectors))))
  (add-hook 'after-change-functions #'tether--cursors-forget nil t)
  (add-hook 'post-command-hook #'tether--cursors-check nil t)
  (let* ((ids (or tether--cursor-ids []))
         (was (and tether--cursor-ranges (aref tether--cursor-ranges tether--cursor-current)))
         (start (and (= (length ids) 0) (use-region-p) (tether--region-range)))
         (listed (and chain (tether--selectors)))
         result)
    (catch 'done
      (dolist (step chain)
        (let* ((colon (string-match ":" step))
               (name (if colon (substring step 0 colon) step))
               (args (condition-case err
                         (tether--selector-args listed name (and colon (substring step (1+ colon))))
                       (user-error (message "Tether: %s" (error-message-string err))
                                   (throw 'done (setq result nil))))))
          (setq result (condition-case err
                           (tether-request "tether/applySelector"
                                           (append (list :uri (tether-uri) :cursorNodeIds ids
                                                         :selector name :args args)
                                                   (and start (list :ranges start))))
                         (tether-error (message "Tether: %s: %s" name (tether-error-message err))
                                       (throw 'done (setq result nil)))))
          (setq ids (plist-get result :cursorNodeIds) start nil)
          (when (= (length ids) 0)
            ;; the cursors, their highlights and the region stay: the next selector starts from them again
            (when tether--cursor-ranges (tether--cursors-show tether--cursor-current))
            (message "Tether: %s: nothing matched%s" name (if tether--cursor-ids " (the cursors stay)" ""))
            (throw 'done nil)))))
    (when (and result (> (length (plist-get result :cursorNodeIds)) 0))
      (setq tether--cursor-ids (plist-get result :cursorNodeIds)
            tether--cursor-ranges (plist-get result :ranges))
      (tether--cursors-show (tether--related tether--cursor-ranges was))
      (message "Tether: %s" (tether--cursors-where)))
    result))

(defun tether-select-next (&optional n)
  "Make the Nth next structural cursor the region (past the last: the first)."
  (interactive "p")
  (unless tether--cursor-ranges (user-error "No structural cursors here (%s selects)"
                                            (substitute-command-keys "\\[tether-select]")))
  (tether--cursors-show (mod (+ tether--cursor-current (or n 1)) (length tether--cursor-ranges)))
  (message "Tether: %s" (tether--cursors-where)))

(defun tether-select-previous (&optional n)
  "Make the Nth previous structural cursor the region (before the first: the last)."
  (interactive "p")
  (tether-select-next (- (or n 1))))

(defvar tether-select-repeat-map
  (let ((map (make-sparse-keymap)))
    (define-key map "]" #'tether-select-next)
    (define-key map "[" #'tether-select-previous)
    map)
  "With `repeat-mode' on, ] and [ step again after \\[tether-select-next].")
(put 'tether-select-next 'repeat-map 'tether-select-repeat-map)
(put 'tether-select-previous 'repeat-map 'tether-select-repeat-map)

(provide 'tether-select)
;;; tether-select.el ends here
