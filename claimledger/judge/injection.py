"""Text in a source that addresses a model ("ignore previous instructions ...").

The scan is a heuristic aimed at imperative text addressed to a model; it is
tuned not to fire on ordinary prose (including papers *about* prompts), and
it is a second line of defence, not the only one.

Source text is data. The prompt says so, but a prompt is no guarantee, so the
pipeline also looks for such text in the evidence it sends and applies a
policy that does not depend on the judge's obedience:

* an evidence quote that overlaps text addressed to a model is never accepted;
* a ``supported`` verdict reached on evidence that contains such text is not
  trusted (a MED finding asks for a human look). Verdicts that *add* a finding
  (contradicted, overclaim, not_found) stand: an injection can only make the
  gate stricter, never let a claim through.
"""

from __future__ import annotations

import re

_PATTERNS = [
    # English
    r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|any|your|the)\b"
    r"[^.\n]{0,20}\b(?:instructions?|prompts?|rules?|directions?|guidelines?)\b",
    r"\b(?:answer|respond|reply|say|output|return|mark|classify|rate)\b[^.\n]{0,30}"
    r"[\"'“”‘’]?\b(?:supported|verified|true|correct|pass(?:ed)?)\b[\"'“”‘’]?\s*(?:[.!]|$|for|to|regardless)",
    r"\b(?:you are|you're|act as|acting as)\s+(?:now\s+)?(?:an?\s+|the\s+)?(?:[a-z-]+\s+){0,2}(?:ai|assistant|language model|"
    r"verifier|judge|fact[- ]checker|chatbot)\b",
    r"<\|?\s*(?:system|im_start|im_end|assistant|user)\s*\|?>",
    r"\bnew instructions?\s*:",
    # Japanese
    r"(?:以前|前|上記|これまで|先|全て|すべて)の(?:指示|命令|指令|プロンプト|ルール)[^。\n]{0,10}(?:無視|忘れ)",
    r"(?:指示|命令|プロンプト)を(?:無視|忘れ)",
    r"(?:supported|verified|サポート|支持|裏付け|正しい|真|合格)[」\"']?\s*(?:と|で)"
    r"(?:答え(?:よ|ろ|なさい|て)|回答(?:せよ|しろ|しなさい|して)|返答(?:せよ|して)|出力(?:せよ|しろ|して)|"
    r"判定(?:せよ|しろ|しなさい|して)|返(?:せ|して))",
    r"(?:あなたは|君は)[^。\n]{0,15}(?:AI|アシスタント|検証者|判定者|審査員|言語モデル)",
]
INJECTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def injection_spans(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Spans of ``text`` (shifted by ``offset``) that read as instructions to a model."""
    return [(m.start() + offset, m.end() + offset) for m in INJECTION.finditer(text)]
