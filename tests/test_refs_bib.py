"""Bibliographies: BibTeX, BibLaTeX, CSL-JSON and the ledger's references (English and Japanese)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimledger._exceptions import InputError
from claimledger.refs.bib import read_bibliography, read_ledger_references
from claimledger.refs.match import MatchOptions, compare, surname
from claimledger.refs.model import Record, Reference

BIBTEX = r"""
% a comment line
@string{nips = {Advances in Neural Information Processing Systems}}
@inproceedings{vaswani2017,
  title     = {Attention Is {All} You Need},
  author    = {Vaswani, Ashish and Shazeer, Noam and others},
  booktitle = nips,
  year      = 2017,
  eprint    = {1706.03762}, archivePrefix = {arXiv},
}
@article{mueller2019,
  title        = {{\"U}ber die {B}ildung von Humus},
  author       = {M{\"u}ller, J{\"o}rg and Ana N\'{u}\~{n}ez},
  journaltitle = {Zeitschrift f{\"u}r Bodenkunde},
  date         = {2019-03},
  doi          = {https://doi.org/10.1000/XYZ.1},
}
@misc{preprint, title = {Sparse Mixtures}, author = {Fischer, Lena}, year = {2021},
  journal = {arXiv preprint arXiv:2101.00042}}
@article{yamada2022, title = {大規模言語モデルによる引用の検証}, author = {山田 太郎 and 佐藤 花子},
  journal = {自然言語処理}, year = {2022}}
"""


def test_bibtex_and_biblatex_fields(tmp_path: Path) -> None:
    p = tmp_path / "refs.bib"
    p.write_text(BIBTEX, "utf-8")
    refs = {r.key: r for r in read_bibliography(p)}
    v = refs["vaswani2017"]
    assert v.title == "Attention Is All You Need" and v.year == 2017 and v.arxiv == "1706.03762"
    assert v.authors == ("Vaswani, Ashish", "Shazeer, Noam") and v.more_authors
    assert v.venue == "Advances in Neural Information Processing Systems"  # @string resolved
    m = refs["mueller2019"]
    assert m.title == "Über die Bildung von Humus" and m.authors[0] == "Müller, Jörg"
    assert m.doi == "10.1000/xyz.1" and m.year == 2019 and m.venue == "Zeitschrift für Bodenkunde"
    assert refs["preprint"].arxiv == "2101.00042"
    y = refs["yamada2022"]
    assert y.authors == ("山田 太郎", "佐藤 花子") and surname(y.authors[0]) == "山田"
    assert m.origin.endswith(":11")  # the entry's line, for messages


def test_a_broken_entry_is_an_input_error_with_its_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.bib"
    p.write_text("@article{ok, title = {Fine}, year = 2020}\n\n@article{bad title = {x}\n", "utf-8")
    with pytest.raises(InputError, match=r"broken\.bib:3: this entry cannot be parsed"):
        read_bibliography(p)


def test_duplicate_keys_and_missing_files(tmp_path: Path) -> None:
    p = tmp_path / "dup.bib"
    p.write_text("@article{a, title = {One}}\n@article{a, title = {Two}}\n", "utf-8")
    with pytest.raises(InputError, match=r"dup\.bib:2: .*Duplicate entry key 'a'"):
        read_bibliography(p)
    with pytest.raises(InputError, match="cannot read the bibliography"):
        read_bibliography(tmp_path / "missing.bib")


def test_csl_json(tmp_path: Path) -> None:
    items = [
        {"id": "vaswani2017", "type": "paper-conference", "title": "Attention Is All You Need",
         "author": [{"family": "Vaswani", "given": "Ashish"}, {"literal": "Google Brain"}],
         "issued": {"date-parts": [[2017, 6]]}, "container-title": "NeurIPS", "DOI": "10.5555/NIPS.2017.7181"},
        {"id": "arx", "title": "Sparse Mixtures", "URL": "https://arxiv.org/abs/2101.00042v2",
         "issued": {"date-parts": [["2021"]]}},
    ]  # fmt: skip
    p = tmp_path / "refs.json"
    p.write_text(json.dumps(items), "utf-8")
    refs = {r.key: r for r in read_bibliography(p)}
    assert refs["vaswani2017"].authors == ("Vaswani, Ashish", "Google Brain")
    assert refs["vaswani2017"].doi == "10.5555/nips.2017.7181" and refs["vaswani2017"].year == 2017
    assert refs["arx"].arxiv == "2101.00042" and refs["arx"].year == 2021
    p.write_text(json.dumps([{"title": "no id"}]), "utf-8")
    with pytest.raises(InputError, match="has no 'id'"):
        read_bibliography(p)


def test_ledger_references() -> None:
    refs = read_ledger_references([
        {"key": "v", "title": "Attention Is All You Need", "authors": ["Vaswani, Ashish"], "year": 2017,
         "venue": "NeurIPS", "doi": "10.5555/nips.2017.7181"},
        {"key": "y", "title": "大規模言語モデルによる引用の検証", "authors": "山田 太郎 and 佐藤 花子", "year": "2022"},
    ])  # fmt: skip
    assert refs[0].venue == "NeurIPS" and refs[0].doi == "10.5555/nips.2017.7181"
    assert refs[1].authors == ("山田 太郎", "佐藤 花子") and refs[1].year == 2022


def _rec(**kw: object) -> Record:
    base: dict[str, object] = {"service": "crossref", "ident": "x", "title": "Deep Residual Learning for Image Recognition",
                               "authors": ("Kaiming He", "Xiangyu Zhang"), "surnames": ("He", "Zhang"), "year": 2016,
                               "venues": ("Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition", "CVPR")}  # fmt: skip
    return Record(**{**base, **kw})  # type: ignore[arg-type]


def test_matching_rules() -> None:
    opts = MatchOptions()
    ref = Reference("he", "Deep residual learning for image recognition", ("He, K.", "Zhang, X."), 2016, "CVPR")
    assert compare(ref, _rec(), opts).all_ok
    assert compare(ref, _rec(year=2017), opts).all_ok  # +-1
    assert not compare(ref, _rec(year=2019), opts).all_ok
    assert compare(ref, _rec(year=2014, preprint=True), opts).all_ok  # cited by its published year
    assert not compare(ref, _rec(year=2018, preprint=True), opts).all_ok  # cited before its preprint
    # a preprint whose record names its published year (arXiv journal_ref): only that year, +-1
    assert compare(ref, _rec(year=2014, preprint=True, published_year=2016), opts).all_ok
    assert not compare(ref, _rec(year=2014, preprint=True, published_year=2014), opts).all_ok
    swapped = Reference("he", ref.title, ("Smith, J.", "Zhang, X."), 2016)
    assert "authors" in compare(swapped, _rec(), opts).differences[0]
    # diacritics and name order
    r = Reference("n", "Soil Carbon", ("Nunez, Maria",), None)
    assert compare(r, _rec(title="Soil Carbon", authors=("María Núñez",), surnames=("Núñez",)), opts).all_ok
    r = Reference("y", "引用の検証", ("山田 太郎",), None)
    assert compare(r, _rec(title="引用の検証", authors=("太郎 山田",), surnames=("山田",)), opts).all_ok
    invented = Reference("he", ref.title, ref.authors, 2016, "Journal of Imaginary Results")
    assert any(d.startswith("venue") for d in compare(invented, _rec(), opts).differences)
    # a record without authors cannot confirm them: the field stays unconfirmed, never "matched"
    assert compare(ref, _rec(authors=(), surnames=()), opts).unconfirmed == ("authors",)
