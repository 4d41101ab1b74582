;;; tether.el --- Tether language server: markers, selectors, playground, tasks  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tether authors

;; Author: The Tether authors
;; Maintainer: The Tether authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages, tools, convenience
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; The Emacs client of Tether, a language server for Python and YAML that keeps
;; notes (markers), structural selections, prompts and AI edits tethered to code
;; while it changes.  It works with eglot (tether-eglot.el) and with lsp-mode
;; (tether-lsp-mode.el).  This file holds the minor mode, its keys and the
;; set-up, and loads the rest, one file per feature: tether-core.el (the
;; connection, positions, edits), tether-markers.el, tether-markers-list.el,
;; tether-select.el, tether-actions.el, tether-preview.el,
;; tether-playground.el and tether-tasks.el.
;;
;;   (setq tether-command '("/path/to/tether/.venv/bin/tether-lsp"))
;;   (tether-setup 'eglot)   ; or 'lsp-mode: started in every Python and YAML buffer
;;
;; In a buffer the server manages, `tether-mode' is on: markers show as a sign
;; in the margin (fringe on graphical frames) with their note after the line,
;; and the commands are under `tether-keymap-prefix' (C-c ; by default):
;;
;;   a  add a marker (region or line)      e  edit a marker's note (C-u: kind)
;;   d  delete a marker                     l  the file's markers
;;   L  the workspace's markers             s  run a selector chain
;;   ]  the next structural cursor          [  the previous one
;;   r  forget the structural cursors       p  the prompt playground
;;   v  preview a replacement               t  run the @run task on this line
;;   k  cancel the running task             g  read the markers again
;;   c  the structural actions, on the structural cursors, else the region,
;;      else point: c k remove, c c clone (C-u: before), c p / c n move up /
;;      down, c i insert, c w wrap, c u unwrap, c m mark, c v move and c b
;;      bring to the mark (C-u: before it), c s swap

;;; Code:

(require 'tether-core)
(require 'tether-markers)
(require 'tether-markers-list)
(require 'tether-select)
(require 'tether-preview)
(require 'tether-playground)
(require 'tether-tasks)
(require 'tether-actions)

;;; Reporting the active buffer and the cursor (the playground follows them)

(defun tether-active-editor ()
  "Tell the server which buffer is active and where the cursor is."
  (when (and (tether-connection) (buffer-file-name))
    (tether--flush)
    (tether--notify "tether/editor/didChangeActiveEditor"
                    (list :textDocument (list :uri (tether-uri)) :position (tether--position)))))

(defvar tether--cursor-timer nil)

(defun tether--cursor-moved ()
  (when (and (tether-connection) (buffer-file-name))
    (when tether--cursor-timer (cancel-timer tether--cursor-timer))
    (let ((buffer (current-buffer)))
      (setq tether--cursor-timer
            (run-with-idle-timer
             0.1 nil
             (lambda ()
               (when (buffer-live-p buffer)
                 (with-current-buffer buffer
                   (when (tether-connection)
                     (tether--flush)
                     (tether--notify "tether/editor/didChangeCursor"
                                     (list :textDocument (list :uri (tether-uri))
                                           :position (tether--position))))))))))))

(defun tether--selected (_window)
  (when (eq (current-buffer) (window-buffer (selected-window)))
    (tether-active-editor)))
;;; The minor mode and its keys

(defvar tether-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "a" #'tether-add-marker)
    (define-key map "e" #'tether-edit-marker)
    (define-key map "d" #'tether-delete-marker)
    (define-key map "l" #'tether-list-markers)
    (define-key map "L" #'tether-list-workspace-markers)
    (define-key map "g" #'tether-refresh-markers)
    (define-key map "s" #'tether-select)
    (define-key map "r" #'tether-select-reset)
    (define-key map "]" #'tether-select-next)
    (define-key map "[" #'tether-select-previous)
    (define-key map "p" #'tether-playground)
    (define-key map "v" #'tether-preview)
    (define-key map "t" #'tether-run-task)
    (define-key map "k" #'tether-cancel-task)
    (define-key map "c" 'tether-action-map)
    map)
  "Tether's commands, under `tether-keymap-prefix' in `tether-mode'.")
(fset 'tether-command-map tether-command-map)

(defvar tether-mode-map (make-sparse-keymap)
  "Keys of `tether-mode': `tether-command-map' under `tether-keymap-prefix'.")

(defvar tether--bound-prefix nil "The prefix `tether-mode-map' has now.")

(defcustom tether-keymap-prefix "C-c ;"
  "The key (as `kbd' reads it) under which `tether-mode' puts Tether's commands."
  :type 'string
  :set (lambda (symbol value)
         (when tether--bound-prefix (define-key tether-mode-map (kbd tether--bound-prefix) nil))
         (when value (define-key tether-mode-map (kbd value) 'tether-command-map))
         (setq tether--bound-prefix value)
         (set-default symbol value))
  :group 'tether)

;;;###autoload
(define-minor-mode tether-mode
  "Tether in this buffer: markers shown, the cursor reported, commands on keys.
Turned on in the buffers Tether's server manages (eglot or lsp-mode).

\\{tether-mode-map}"
  :lighter " Tether"
  :keymap tether-mode-map
  (if tether-mode
      (progn
        (add-hook 'post-command-hook #'tether--cursor-moved nil t)
        (add-hook 'window-selection-change-functions #'tether--selected nil t)
        (add-hook 'after-save-hook #'tether-refresh-markers nil t)
        (tether-refresh-markers))
    (remove-hook 'post-command-hook #'tether--cursor-moved t)
    (remove-hook 'window-selection-change-functions #'tether--selected t)
    (remove-hook 'after-save-hook #'tether-refresh-markers t)
    (remove-overlays (point-min) (point-max) 'tether-marker-overlay t)
    (setq tether--markers nil)
    (tether--use-margin nil)))

(defcustom tether-start-hooks '(python-mode-hook python-ts-mode-hook yaml-mode-hook yaml-ts-mode-hook)
  "The major mode hooks on which `tether-setup' with a client starts Tether."
  :type '(repeat symbol)
  :group 'tether)

(declare-function tether-eglot-setup "tether-eglot")
(declare-function tether-lsp-mode-setup "tether-lsp-mode")

;;;###autoload
(defun tether-setup (&optional client)
  "Use Tether for Python and YAML buffers, with eglot and with lsp-mode.
Whichever of the two is loaded gets Tether registered.  CLIENT `eglot' or
`lsp-mode' also starts Tether in every Python and YAML buffer visited
\=(`eglot-ensure' or `lsp-deferred' on their modes' hooks); without it,
start it with \[eglot] or \[lsp]."
  (with-eval-after-load 'eglot
    (require 'tether-eglot)
    (tether-eglot-setup))
  (with-eval-after-load 'lsp-mode
    (require 'tether-lsp-mode)
    (tether-lsp-mode-setup))
  (when client
    (let ((start (pcase client
                   ('eglot 'eglot-ensure)
                   ('lsp-mode 'lsp-deferred)
                   (_ (user-error "tether-setup: CLIENT is eglot or lsp-mode, not %S" client)))))
      (dolist (hook tether-start-hooks)
        (add-hook hook start)))))

(provide 'tether)
;;; tether.el ends here
