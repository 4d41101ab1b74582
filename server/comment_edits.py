"""Edits that stay inside a YAML comment: the edited old tree already is the new text's tree.

Why: tree-sitter-yaml's scanner stores the column where each of its tokens ends, comments included. After
an edit that changes a comment's length, tree-sitter finds the scanner state before the next subtree
changed, skips that subtree, and at its end compares against the zero-width tokens that closed it, which
it has not lexed again yet: nothing after the edit is reused. Typing in a comment in the middle of a
10,000-line YAML file re-parsed the 5,000 lines that follow it (14 ms a keystroke).

A YAML comment runs from ``#`` to the end of its line: any character but CR, LF and NUL continues it, and
what follows the line does not depend on it. So an edit strictly after a comment's ``#`` and not past its
end, which neither removes nor inserts CR, LF or NUL, changes no node but that comment's length, and
``Tree.edit`` (which shifts every later node and stretches the comment) gives exactly the tree a parse
would. Not in a tree with syntax errors: tree-sitter's error recovery weighs the bytes it skips, so there a
comment's length can change how the errors are recovered. A property test checks all this against fresh
parses, node for node.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Point, Tree

from .documents import ByteEdit

#: Languages whose comment edits skip the parse (Python's incremental parse already reuses the rest).
LANGUAGES = frozenset({"yaml"})
_BREAKS = (b"\r", b"\n", b"\x00")


def edit_tree(tree: Tree, edit: ByteEdit) -> None:
    """Tell ``tree`` about one edit (positions only: nothing is parsed)."""
    tree.edit(
        start_byte=edit.start,
        old_end_byte=edit.old_end,
        new_end_byte=edit.new_end,
        start_point=Point(*edit.start_point),
        old_end_point=Point(*edit.old_end_point),
        new_end_point=Point(*edit.new_end_point),
    )


def inside_a_comment(tree: Tree, edit: ByteEdit) -> bool:
    """``edit`` (in the coordinates of ``tree``'s text) only changes the body of one comment."""
    if edit.start < 1 or any(b in edit.new_text or b in edit.old_text for b in _BREAKS):
        return False
    if tree.root_node.has_error:  # error recovery weighs skipped bytes: a comment's length can sway it
        return False
    node = tree.root_node.descendant_for_byte_range(edit.start - 1, edit.start)
    return node is not None and node.type == "comment" and edit.old_end <= node.end_byte


def edit_comments(tree: Tree, edits: Sequence[ByteEdit]) -> bool:
    """Apply ``edits`` to ``tree`` in order; True when each stayed inside a comment, so ``tree`` needs no parse.

    All edits are applied either way: the tree is then the base of an incremental parse.
    """
    only_comments = True
    for edit in edits:
        only_comments = only_comments and inside_a_comment(tree, edit)
        edit_tree(tree, edit)
    return only_comments
