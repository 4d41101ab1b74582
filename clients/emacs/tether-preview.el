;;; tether-preview.el --- Tether replacement preview  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the tether package: where a completion goes, asked of the server;
;; a replacement shown struck through with the new block under it until TAB
;; accepts or ESC rejects it.

;;; Code:

(require 'subr-x)
(require 'tether-core)

;;; Replacement preview

(defface tether-struck-face '((t :strike-through t :inherit diff-removed))
  "The code a previewed replacement would replace."
  :group 'tether)
(defface tether-new-face '((t :inherit diff-added :extend t))
  "The new code of a previewed replacement."
  :group 'tether)

(defvar-local tether--preview nil "The pending replacement: (OVERLAYS EDIT).")

(defvar tether-preview-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "TAB") #'tether-preview-accept)
    (define-key map (kbd "<tab>") #'tether-preview-accept)
    (define-key map (kbd "C-g") #'tether-preview-reject)
    (define-key map (kbd "<escape>") #'tether-preview-reject)
    map)
  "Keys while a replacement preview is shown: TAB accepts, ESC or C-g rejects.")

(define-minor-mode tether-preview-mode
  "A replacement preview is shown: TAB accepts it, ESC or C-g rejects it."
  :lighter " Tether-preview"
  (unless tether-preview-mode (tether-preview-reject)))

(defun tether-preview-reject ()
  "Drop the replacement preview."
  (interactive)
  (when tether--preview
    (mapc #'delete-overlay (car tether--preview))
    (setq tether--preview nil)
    (remove-hook 'after-change-functions #'tether--preview-edited t)
    (when tether-preview-mode (tether-preview-mode -1))))

(defun tether--preview-edited (beg end _len)
  "An edit inside the struck code drops the preview."
  (when-let ((old (car (car tether--preview))))
    (when (and (overlay-start old) (<= (overlay-start old) end) (>= (overlay-end old) beg))
      (tether-preview-reject))))

(defun tether-preview-accept ()
  "Write the previewed replacement."
  (interactive)
  (when-let ((edit (cadr tether--preview)))
    (let ((connection (tether--connection)))
      (tether-preview-reject)
      (tether-apply-text-edits connection (vector edit)))))

;;;###autoload
(defun tether-preview (completion)
  "Ask the server where COMPLETION at point goes and preview it.
A replacement shows the old code struck through, the new block under it;
an insertion is written."
  (interactive "sCompletion: ")
  (let* ((connection (tether--connection))
         (version (tether-backend-version connection))
         (analysis (tether-request "tether/analyzeReplacement"
                                   (list :textDocument (append (list :uri (tether-uri))
                                                               (and version (list :version version)))
                                         :position (tether--position)
                                         :completion completion))))
    (tether-preview-reject)
    (if (and (equal (plist-get analysis :mode) "replace") (eq (plist-get analysis :showVisualDiff) t))
        (let* ((range (plist-get analysis :replaceRange))
               (beg (tether--point (plist-get range :start)))
               (end (tether--point (plist-get range :end)))
               (end (save-excursion (goto-char end)
                                    (if (and (bolp) (> end beg)) (1- end) (line-end-position))))
               (old (make-overlay beg end))
               (new (make-overlay end end))
               (text (string-trim-right (plist-get (plist-get analysis :edit) :newText) "\n")))
          (overlay-put old 'face 'tether-struck-face)
          (overlay-put new 'after-string (concat "\n" (propertize text 'face 'tether-new-face)))
          (setq tether--preview (list (list old new) (plist-get analysis :edit)))
          (add-hook 'after-change-functions #'tether--preview-edited nil t)
          (tether-preview-mode 1))
      (tether-apply-text-edits connection (vector (plist-get analysis :edit))))
    analysis))

(provide 'tether-preview)
;;; tether-preview.el ends here
