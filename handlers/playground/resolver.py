"""The resolver: stable ids for files and prompts across edits, reorders and renames (docs/playground.md, "Identity").

How: a file's identity is its path (a copy never steals ids), one similarity scale (1 = identical) everywhere,
duplicate-safe exact passes before a greedy fuzzy pass, and tombstones so that delete-then-undo restores an id."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tether_lsp.server.lazy import lazy_module

from .model import MapFile, MapPrompt, PlaygroundMap, Prompt

if TYPE_CHECKING:
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein
else:  # loaded on first use (~50 ms to import): initialize does not need it
    process = lazy_module("rapidfuzz.process")
    Levenshtein = lazy_module("rapidfuzz.distance.Levenshtein")


def load_matching() -> None:
    """Import rapidfuzz now: a worker calls this before the first match, which would otherwise import it on the
    loop (10-50 ms)."""
    _ = process.extract, Levenshtein.normalized_similarity


THRESHOLD = 0.4  # similarity of a fuzzy pair (distance <= 0.6) ...
SHORT_THRESHOLD = 0.6  # ... and when both texts are under SHORT characters
SHORT = 40
ANCHOR_BONUS = 0.15
RENAME_THRESHOLD = 0.5  # mean prompt similarity confirming a renamed file
TOMBSTONE_UPDATES = 20
TOMBSTONE_SECONDS = 600.0


def similarity(a: str, b: str) -> float:
    """1 - Levenshtein distance / length of the longer text (texts already whitespace-normalised)."""
    return float(Levenshtein.normalized_similarity(a, b))


@dataclass(frozen=True)
class Thresholds:
    """The similarity thresholds (settings ``tether.playground.*Threshold``)."""

    pair: float = THRESHOLD
    short_pair: float = SHORT_THRESHOLD
    rename: float = RENAME_THRESHOLD

    def for_pair(self, a: str, b: str) -> float:
        return self.short_pair if len(a) < SHORT and len(b) < SHORT else self.pair


DEFAULT = Thresholds()


@dataclass
class PromptMatch:
    """``matchPlaygroundMapPrompts``' result: parsed index -> map prompt, what is left, and the file score."""

    pairs: dict[int, MapPrompt] = field(default_factory=dict)
    unmatched_map: list[MapPrompt] = field(default_factory=list)
    unmatched_parsed: list[int] = field(default_factory=list)
    score: float = 0.0


def match_prompts_by_content(
    map_prompts: list[MapPrompt], parsed: Sequence[Prompt], todo: list[int], same_anchor: bool
) -> tuple[dict[int, MapPrompt], list[MapPrompt], list[int]]:
    """Exact content matches, in document order on both sides (identical duplicates keep distinct ids)."""
    pairs: dict[int, MapPrompt] = {}
    left = sorted(map_prompts, key=lambda p: p.order)
    for index in list(todo):
        prompt = parsed[index]
        found = next(
            (m for m in left if m.content == prompt.norm and (not same_anchor or m.anchor == prompt.anchor)), None
        )
        if found is not None:
            pairs[index] = found
            left.remove(found)
            todo.remove(index)
    return pairs, left, todo


def match_prompts_by_distance(
    map_prompts: list[MapPrompt], parsed: Sequence[Prompt], todo: list[int], limits: Thresholds = DEFAULT
) -> tuple[dict[int, MapPrompt], list[MapPrompt], list[int], list[float]]:
    """Every pair above the threshold, best first (a same anchor adds a bonus), ties by nearer position."""
    candidates = []
    for m in map_prompts:
        for index in todo:
            p = parsed[index]
            score = similarity(m.content, p.norm)
            if score < limits.for_pair(m.content, p.norm):
                continue
            bonus = ANCHOR_BONUS if m.anchor == p.anchor else 0.0
            candidates.append((-(score + bonus), abs(m.order - index), m.order, index, m, score))
    candidates.sort(key=lambda c: c[:4])
    pairs: dict[int, MapPrompt] = {}
    used: set[str] = set()
    scores = []
    for _, _, _, index, m, score in candidates:
        if index in pairs or m.id in used:
            continue
        pairs[index] = m
        used.add(m.id)
        scores.append(score)
    left = [m for m in map_prompts if m.id not in used]
    return pairs, left, [i for i in todo if i not in pairs], scores


def match_prompts(
    map_prompts: list[MapPrompt],
    parsed: Sequence[Prompt],
    tombstones: Sequence[MapPrompt] = (),
    limits: Thresholds = DEFAULT,
) -> PromptMatch:
    """``matchPlaygroundMapPrompts``: passes (1) content+anchor, (2) content, (3) fuzzy, (4) tombstones."""
    todo = list(range(len(parsed)))
    a, left, todo = match_prompts_by_content(map_prompts, parsed, todo, same_anchor=True)
    b, left, todo = match_prompts_by_content(left, parsed, todo, same_anchor=False)
    c, left, todo, fuzzy_scores = match_prompts_by_distance(left, parsed, todo, limits)
    pairs = a | b | c
    scores = [1.0] * (len(a) + len(b)) + fuzzy_scores
    if todo and tombstones:
        dead = list(tombstones)
        d, dead, todo = match_prompts_by_content(dead, parsed, todo, same_anchor=False)
        e, dead, todo, more = match_prompts_by_distance(dead, parsed, todo, limits)
        pairs |= d | e
        scores += [1.0] * len(d) + more
    total = max(len(parsed), len(map_prompts))
    return PromptMatch(pairs, left, todo, sum(scores) / total if total else 1.0)


def match_file(pmap: PlaygroundMap, uri: str) -> MapFile | None:
    """``matchPlaygroundMapFile``: a file's identity is its path — an existing entry is always reused."""
    return pmap.by_uri(uri)


def match_file_by_distance(
    pmap: PlaygroundMap, parsed: Sequence[Prompt], exists: Callable[[str], bool], limits: Thresholds = DEFAULT
) -> MapFile | None:
    """``matchPlaygroundMapFileByDistance`` for a renamed file: among entries whose file is gone from disk,
    the best mean prompt similarity, if at least RENAME_THRESHOLD. A copy (the original still there) never
    qualifies."""
    best: tuple[float, MapFile] | None = None
    gone = [entry for entry in pmap.files.values() if entry.prompts and not exists(entry.uri)]
    for entry in rename_candidates(gone, parsed, limits):
        score = match_prompts(entry.prompts, parsed, (), limits).score
        if score >= limits.rename and (best is None or score > best[0]):
            best = (score, entry)
    return None if best is None else best[1]


def rename_candidates(entries: list[MapFile], parsed: Sequence[Prompt], limits: Thresholds) -> list[MapFile]:
    """Entries whose score could reach RENAME_THRESHOLD, best bound first.

    One C search per parsed prompt over every map prompt gives each entry an upper bound of its score (the sum
    of each parsed prompt's best similarity there); only those above the threshold get the full matching.
    """
    if len(entries) <= 8 or not parsed:
        return entries
    norms = [p.content for e in entries for p in e.prompts]
    owners = [k for k, e in enumerate(entries) for _ in e.prompts]
    best: dict[int, dict[int, float]] = {}
    for i, prompt in enumerate(parsed):
        for _, score, at in process.extract(
            prompt.norm, norms, scorer=Levenshtein.normalized_similarity, score_cutoff=limits.pair, limit=None
        ):
            per = best.setdefault(owners[at], {})
            per[i] = max(per.get(i, 0.0), score)
    bounds = []
    for k, per in best.items():
        bound = sum(per.values()) / max(len(parsed), len(entries[k].prompts))
        if bound >= limits.rename:
            bounds.append((bound, k))
    return [entries[k] for _, k in sorted(bounds, reverse=True)]


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def resolve_file_prompts(
    pmap: PlaygroundMap,
    uri: str,
    parsed: Sequence[Prompt],
    *,
    exists: Callable[[str], bool],
    renamed_from: str | None = None,
    now: float | None = None,
    limits: Thresholds = DEFAULT,
) -> tuple[MapFile, list[str], bool]:
    """``resolveFilePromptsMap``: the file's entry (found, inherited on a rename, or new) with an id for each
    parsed prompt. Returns (entry, ids in parsed order, whether the map changed)."""
    now = time.time() if now is None else now
    entry = match_file(pmap, uri)
    if entry is None and renamed_from is not None:
        entry = match_file(pmap, renamed_from)
    if entry is None:
        entry = match_file_by_distance(pmap, parsed, exists, limits)
    if entry is None:
        entry = MapFile(new_id(), uri, now)
        pmap.files[entry.id] = entry
    changed = entry.uri != uri
    entry.uri = uri
    entry.updates += 1
    entry.tombstones = [
        t
        for t in entry.tombstones
        if (t.removed_update or 0) >= entry.updates - TOMBSTONE_UPDATES
        and now - (t.removed_at or now) <= TOMBSTONE_SECONDS
    ]
    match = match_prompts(entry.prompts, parsed, entry.tombstones, limits)
    ids = []
    prompts = []
    for index, prompt in enumerate(parsed):
        old = match.pairs.get(index)
        if old is None:
            old = MapPrompt(new_id(), prompt.anchor, prompt.norm, index, now)
            changed = True
        elif (old.anchor, old.content, old.order, old.removed_at) != (prompt.anchor, prompt.norm, index, None):
            old.anchor, old.content, old.order, old.updated_at = prompt.anchor, prompt.norm, index, now
            old.removed_at = old.removed_update = None
            changed = True
        ids.append(old.id)
        prompts.append(old)
    revived = {p.id for p in prompts}
    entry.tombstones = [t for t in entry.tombstones if t.id not in revived]
    for gone in match.unmatched_map:
        gone.removed_at, gone.removed_update = now, entry.updates
        entry.tombstones.append(gone)
        changed = True
    entry.prompts = prompts
    if changed:
        entry.updated_at = now
    return entry, ids, changed
