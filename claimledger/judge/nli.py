"""A local NLI cross-encoder (ONNX) loaded from a folder. Nothing is downloaded at run time.

The folder holds ``model.onnx`` (or ``onnx/model.onnx``), ``tokenizer.json``
and ``config.json`` (whose ``id2label`` names the entailment, neutral and
contradiction outputs), e.g. a multilingual NLI cross-encoder exported once
with ``optimum-cli export onnx``. Needs the optional extra:
``pip install 'claimledger[nli]'`` (onnxruntime, tokenizers, numpy).

Each evidence sentence is a premise, the claim the hypothesis. An NLI model
cannot judge scope or hedges, so it answers supported, contradicted or
not_found; its evidence quote is the deciding sentence, a literal slice of
the source, which the pipeline checks like any other answer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from claimledger.judge.retrieve import sentence_spans
from claimledger.judge.types import JudgeConfigError, JudgeError, JudgeRequest, JudgeVerdict

INSTALL_HINT = "the NLI judge needs the optional extra: pip install 'claimledger[nli]' (onnxruntime, tokenizers, numpy)"


def find_model_files(folder: str | Path) -> tuple[Path, Path, Path]:
    """``(model.onnx, tokenizer.json, config.json)`` in ``folder``, or a clear :class:`JudgeConfigError`."""
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise JudgeConfigError(
            f"NLI model folder {str(path)!r} does not exist: give the folder of a cross-encoder exported to "
            "ONNX (model.onnx, tokenizer.json, config.json); claimledger never downloads models"
        )
    onnx = next((p for p in (path / "model.onnx", path / "onnx" / "model.onnx") if p.is_file()), None)
    tokenizer, config = path / "tokenizer.json", path / "config.json"
    missing = [name for name, p in (("model.onnx", onnx), ("tokenizer.json", tokenizer), ("config.json", config))
               if p is None or not p.is_file()]  # fmt: skip
    if missing or onnx is None:
        raise JudgeConfigError(f"NLI model folder {str(path)!r} lacks {', '.join(missing)}")
    return onnx, tokenizer, config


def label_indices(config: dict[str, Any]) -> dict[str, int]:
    """Map ``entailment``/``contradiction``/``neutral`` to output indices from ``id2label``."""
    id2label = config.get("id2label")
    if not isinstance(id2label, dict):
        raise JudgeConfigError("the NLI model's config.json has no id2label")
    out: dict[str, int] = {}
    for idx, label in id2label.items():
        name = str(label).lower()
        for key in ("entail", "contradict", "neutral"):
            if name.startswith(key):
                out[{"entail": "entailment", "contradict": "contradiction", "neutral": "neutral"}[key]] = int(idx)
    if "entailment" not in out or "contradiction" not in out:
        raise JudgeConfigError(f"the NLI model's labels {sorted(map(str, id2label.values()))} lack entailment/contradiction")
    return out


def decide(
    premises: Sequence[str],
    probabilities: Sequence[Sequence[float]],
    labels: dict[str, int],
    *,
    entail_threshold: float = 0.5,
    contradict_threshold: float = 0.5,
) -> JudgeVerdict:
    """Turn per-premise label probabilities into a verdict backed by the deciding premise."""
    if not premises:
        return JudgeVerdict("not_found", "", "no evidence sentence to compare with the claim")
    ent = [row[labels["entailment"]] for row in probabilities]
    con = [row[labels["contradiction"]] for row in probabilities]
    best_e = max(range(len(ent)), key=lambda i: ent[i])
    best_c = max(range(len(con)), key=lambda i: con[i])
    if con[best_c] >= contradict_threshold and con[best_c] > ent[best_e]:
        return JudgeVerdict(
            "contradicted", premises[best_c], f"NLI contradiction probability {con[best_c]:.2f} for this sentence"
        )
    if ent[best_e] >= entail_threshold:
        return JudgeVerdict(
            "supported", premises[best_e], f"NLI entailment probability {ent[best_e]:.2f} for this sentence"
        )
    return JudgeVerdict(
        "not_found", "", f"no evidence sentence entails or contradicts the claim (best entailment {ent[best_e]:.2f})"
    )


class NLIJudge:
    """A cross-encoder run with onnxruntime on the CPU."""

    kind = "nli"

    def __init__(
        self,
        model: str,
        url: str | None = None,
        *,
        entail_threshold: float = 0.5,
        contradict_threshold: float = 0.5,
        max_length: int = 512,
        batch_size: int = 16,
    ) -> None:
        if url:
            raise JudgeConfigError("the NLI judge runs locally: give the model folder as the model, not a URL")
        onnx_path, tokenizer_path, config_path = find_model_files(model)
        try:
            import numpy
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise JudgeConfigError(f"{INSTALL_HINT} ({exc})") from exc
        self.model = str(Path(model).expanduser())
        self.entail_threshold = entail_threshold
        self.contradict_threshold = contradict_threshold
        self.batch_size = batch_size
        try:
            self._labels = label_indices(json.loads(config_path.read_text(encoding="utf-8")))
            self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
            self._session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
        except JudgeConfigError:
            raise
        except Exception as exc:
            raise JudgeConfigError(f"cannot load the NLI model from {self.model!r}: {exc}") from exc
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.enable_padding()
        self._np = numpy
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()

    def _probabilities(self, premises: Sequence[str], hypothesis: str) -> list[list[float]]:
        np = self._np
        rows: list[list[float]] = []
        for i in range(0, len(premises), self.batch_size):
            batch = self._tokenizer.encode_batch([(p, hypothesis) for p in premises[i : i + self.batch_size]])
            feed = {
                "input_ids": np.array([e.ids for e in batch], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in batch], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in batch], dtype=np.int64),
            }
            with self._lock:
                logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
            shifted = logits - logits.max(axis=1, keepdims=True)
            probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
            rows.extend([float(x) for x in row] for row in probs)
        return rows

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        premises = [p.text[a:b] for p in request.passages for a, b in sentence_spans(p.text)]
        try:
            probs = self._probabilities(premises, request.claim) if premises else []
        except Exception as exc:
            raise JudgeError("crash", f"the NLI model failed: {type(exc).__name__}: {exc}") from exc
        return decide(
            premises, probs, self._labels,
            entail_threshold=self.entail_threshold, contradict_threshold=self.contradict_threshold,
        )  # fmt: skip

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "labels": self._labels}

    def close(self) -> None:
        return None
