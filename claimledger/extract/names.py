"""Proper names in a sentence: researchers, titles, journals, packages, estimators, organisations.

English: capitalised words that are not the first word of a sentence
(``Smith``, ``DuckDB``, ``OECD``, ``Journal of Labor Economics`` gives
``Journal``, ``Labor``, ``Economics``) — the first word counts only when it is
clearly a name (inner capital, digit, or all capitals: ``MiniCheck``,
``GPT-4``, ``OECD``). Function words, months, weekdays and words such as
"Table" or "Figure" are never names.

Japanese: katakana words of three or more characters marked as names
(``ジョン・スミス``, ``スミス氏``, ``スミスら（2019）``, ``ウッドリッジの推定量``,
``アクメ社``; a bare loanword such as ``ベッド`` is vocabulary, not a name) and
kanji person names marked as such (``田中ら``, ``田中氏``, ``田中教授``,
``田中（2019）``).

Never names: nationality and regional words ("Canadian", "Canadians",
"Franco-German"; 「カナダの研究」, 「アメリカ人」, 「日本等の」): they say where,
not who, and a place is the scope check's business.

Precision over recall: a name that is missed only means one check less; a
false name is a false alarm (HIGH).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_NOT_NAMES = frozenset(
    ["a", "an", "the", "this", "that", "these", "those", "there", "their", "they", "them", "then", "than", "thus", "hence", "however", "moreover", "furthermore", "although", "though", "while", "whereas", "when", "where", "which", "who", "whom", "whose", "what", "why", "how", "here", "it", "its", "we", "our", "us", "i", "you", "your", "he", "she", "his", "her", "in", "on", "at", "by", "for", "from", "of", "to", "with", "without", "within", "into", "onto", "over", "under", "after", "before", "during", "since", "until", "and", "or", "but", "nor", "so", "yet", "if", "as", "also", "both", "either", "neither", "each", "every", "all", "some", "any", "many", "most", "more", "much", "few", "several", "such", "no", "not", "only", "just", "even", "still", "other", "another", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "first", "second", "third", "finally", "overall", "similarly", "likewise", "instead", "indeed", "specifically", "notably", "importantly", "consequently", "according", "based", "using", "given", "despite", "among", "between", "across", "along", "around", "about", "above", "below", "table", "tables", "figure", "figures", "fig", "section", "sections", "chapter", "chapters", "appendix", "equation", "eq", "page", "pages", "part", "parts", "panel", "column", "columns", "row", "rows", "note", "notes", "see", "cf", "ibid", "et", "al", "vs", "i.e", "e.g", "etc", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "study", "studies", "paper", "papers", "report", "reports", "authors", "author", "results", "result", "evidence", "data", "yes", "ok", "mr", "mrs", "ms", "dr", "prof"]
)
# titles and generic words of institutions and places: capitalised in names, not names themselves
_GENERIC = frozenset(
    ["city", "county", "state", "province", "region", "district", "university", "college", "school", "museum", "institute", "institution", "department", "ministry", "agency", "company", "corporation", "group", "association", "society", "council", "committee", "board", "center", "centre", "party", "river", "lake", "mountain", "street", "road", "station", "hospital", "church", "bridge", "park", "airport", "executive", "producer", "director", "president", "minister", "chairman", "chair", "ceo", "professor", "doctor", "captain", "king", "queen", "prince", "princess", "lord", "lady", "sir", "saint", "general", "senator", "governor", "mayor", "judge", "north", "south", "east", "west", "northern", "southern", "eastern", "western", "national", "international", "federal", "royal"]
)
# nationality and regional adjectives (Canadian, Canadians): they say where, not who; a place is
# the scope check's business, never a name the source must print
_DEMONYMS = frozenset(
    ["afghan", "albanian", "algerian", "american", "andorran", "angolan", "argentine", "argentinian", "armenian", "australian", "austrian", "azerbaijani", "bahamian", "bahraini", "bangladeshi", "barbadian", "belarusian", "belgian", "belizean", "beninese", "bhutanese", "bolivian", "bosnian", "botswanan", "brazilian", "british", "bruneian", "bulgarian", "burkinabe", "burmese", "burundian", "cambodian", "cameroonian", "canadian", "chadian", "chilean", "chinese", "colombian", "congolese", "croatian", "cuban", "cypriot", "czech", "danish", "djiboutian", "dominican", "dutch", "ecuadorian", "egyptian", "emirati", "english", "eritrean", "estonian", "ethiopian", "fijian", "filipino", "finnish", "french", "gabonese", "gambian", "georgian", "german", "ghanaian", "greek", "grenadian", "guatemalan", "guinean", "guyanese", "haitian", "honduran", "hungarian", "icelandic", "indian", "indonesian", "iranian", "iraqi", "irish", "israeli", "italian", "ivorian", "jamaican", "japanese", "jordanian", "kazakh", "kenyan", "korean", "kosovar", "kuwaiti", "kyrgyz", "laotian", "latvian", "lebanese", "liberian", "libyan", "lithuanian", "luxembourgish", "macedonian", "malagasy", "malawian", "malaysian", "maldivian", "malian", "maltese", "mauritanian", "mauritian", "mexican", "moldovan", "monegasque", "mongolian", "montenegrin", "moroccan", "mozambican", "namibian", "nepalese", "nepali", "nicaraguan", "nigerian", "nigerien", "norwegian", "omani", "pakistani", "palestinian", "panamanian", "paraguayan", "persian", "peruvian", "polish", "portuguese", "qatari", "romanian", "russian", "rwandan", "salvadoran", "samoan", "saudi", "scottish", "senegalese", "serbian", "singaporean", "slovak", "slovakian", "slovenian", "somali", "spanish", "sudanese", "surinamese", "swazi", "swedish", "swiss", "syrian", "taiwanese", "tajik", "tanzanian", "thai", "togolese", "tongan", "trinidadian", "tunisian", "turkish", "turkmen", "ugandan", "ukrainian", "uruguayan", "uzbek", "venezuelan", "vietnamese", "welsh", "yemeni", "zambian", "zimbabwean", "african", "asian", "european", "arab", "arabic", "caribbean", "latin", "nordic", "scandinavian", "balkan", "baltic", "slavic", "iberian", "mediterranean", "pacific", "atlantic", "antarctic", "arctic", "oceanian", "hispanic", "anglo", "anglophone", "francophone", "north-american", "south-american", "latin-american", "east-asian", "southeast-asian", "sub-saharan", "middle-eastern", "western", "eastern", "northern", "southern", "catholic", "christian", "protestant", "muslim", "islamic", "jewish", "buddhist", "hindu", "roman", "yoy", "qoq", "ytd"]
)
# the same in Japanese: countries and regions before の/人/系/企業 (カナダの研究 is about Canada, not by a
# researcher called カナダ), and kanji country names before 等 (日本等の先進国)
_JA_PLACES = frozenset(
    ["アメリカ", "イギリス", "カナダ", "ドイツ", "フランス", "イタリア", "スペイン", "オランダ", "ベルギー", "スイス", "オーストリア", "スウェーデン", "ノルウェー", "デンマーク", "フィンランド", "アイスランド", "アイルランド", "ポルトガル", "ギリシャ", "ギリシア", "ポーランド", "チェコ", "ハンガリー", "ルーマニア", "ブルガリア", "ロシア", "ウクライナ", "トルコ", "イスラエル", "イラン", "イラク", "サウジアラビア", "エジプト", "ケニア", "ナイジェリア", "オーストラリア", "ニュージーランド", "ブラジル", "アルゼンチン", "メキシコ", "チリ", "コロンビア", "ペルー", "インド", "インドネシア", "マレーシア", "シンガポール", "フィリピン", "ベトナム", "タイ", "カンボジア", "ミャンマー", "バングラデシュ", "パキスタン", "モンゴル", "ヨーロッパ", "アジア", "アフリカ", "アジア太平洋", "オセアニア", "ラテンアメリカ", "北米", "南米", "ユーラシア", "スカンジナビア"]
)
_JA_KANJI_PLACES = frozenset(
    ["日本", "米国", "英国", "中国", "韓国", "北朝鮮", "台湾", "香港", "独国", "仏国", "露国", "欧州", "欧米", "北米", "南米", "豪州", "東欧", "西欧", "北欧", "南欧", "中東", "東南アジア", "各国", "諸国", "先進国", "途上国", "新興国", "国内", "海外", "全国", "世界", "都市部", "地方", "首都圏", "関東", "関西", "東京", "大阪"]
)
_LATIN = "A-Za-z0-9\u00c0-\u024f"
_EN_WORD = re.compile(rf"(?<![\w@\\])[A-Z][{_LATIN}'’\-]*(?:\.[A-Z][{_LATIN}\-]*)*")
_NOT_A_NAME = re.compile(r"^(?:Q[1-4]|H[12]|FY\d*|[IVX]+)$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“(\[]\s*)$")
_NAME_FOLLOWS = re.compile(r"(?:'s|’s)?\s*(?:\(\s*\d{4}|et\s+al\b|(?:and|&)\s+[A-Z]|[A-Z][a-z])")
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc\u30fd\u30fe\u30fb\uff66-\uff9f]{3,}")
_KANJI_PERSON = re.compile(
    r"(?P<name>[\u4e00-\u9fff々]{2,4})(?=(?:ら|等|氏|教授|准教授|博士|先生|さん|らの)|\s*[（(]\s*[0-9０-９]{4})"
)
_KATAKANA_NAME_AFTER = re.compile(
    r"(?:氏|ら|等|教授|准教授|博士|先生|さん|社|大学|研究所|財団|の(?:研究|論文|推定量|方法|手法|モデル|検定|定理)"
    r"|\s*[（(]\s*[0-9０-９]{4}|\s*et al)"
)
_KANJI_STOP = frozenset(["本稿", "本研究", "先行研究", "同研究", "研究", "報告", "調査", "論文", "著者", "筆者", "我々"])


@dataclass(frozen=True)
class Name:
    """A proper name found in a text: its span and its text."""

    start: int
    end: int
    text: str
    script: str  # "latin", "katakana", "kanji"


def _clean(word: str) -> str:
    word = _POSSESSIVE.sub("", word).strip("-'’.")
    head, sep, tail = word.partition("-")
    if sep and tail[:1].islower():  # Sims-based, Go-there: the name is the capitalised part
        word = head
    if len(word) >= 3 and word.endswith("s") and word[:-1].isupper():  # GANs, CNNs: the acronym
        word = word[:-1]
    if word.endswith("s") and len(word) >= 4 and word[-2].isupper() and word[0].isupper():  # PhDs
        word = word[:-1]
    return word


def _is_demonym(folded: str) -> bool:
    """Canadian, Canadians, Japanese, Franco-German: nationality and regional adjectives and nouns."""
    if folded in _DEMONYMS or (folded.endswith("s") and folded[:-1] in _DEMONYMS):
        return True
    parts = folded.split("-")
    return len(parts) > 1 and all(p in _DEMONYMS or p in ("franco", "anglo", "sino", "indo", "afro", "euro") for p in parts)


def _clearly_a_name(word: str) -> bool:
    body = word.replace("-", "").replace(".", "")
    if len(body) >= 2 and body.isupper() and body.isalpha():
        return True
    return any(ch.isupper() for ch in body[1:]) or any(ch.isdigit() for ch in body)


def latin_names(text: str) -> list[Name]:
    out: list[Name] = []
    for m in _EN_WORD.finditer(text):
        word = _clean(m.group())
        folded = word.casefold()
        if len(word) < 2 or folded in _NOT_NAMES or folded in _GENERIC or _is_demonym(folded) or _NOT_A_NAME.match(word):
            continue
        at_start = bool(_SENTENCE_START.search(text[max(0, m.start() - 3) : m.start()])) or m.start() == 0
        if at_start and not _clearly_a_name(word) and not _NAME_FOLLOWS.match(text, m.start() + len(word)):
            continue
        out.append(Name(m.start(), m.start() + len(word), word, "latin"))
    return out


def japanese_names(text: str) -> list[Name]:
    out: list[Name] = []
    for m in _KATAKANA.finditer(text):
        word = m.group().strip("・")
        if len(word.replace("ー", "").replace("・", "")) < 3:
            continue
        # a katakana word is a name when it is marked as one (スミス氏, スミスら（2019）, ジョン・スミス,
        # ウッドリッジの推定量); a bare loanword (ベッド, フルーツ) is ordinary vocabulary
        if word in _JA_PLACES or word.rstrip("人系") in _JA_PLACES:
            continue  # カナダの研究, アメリカ人: a place, not a name
        if "・" in word or _KATAKANA_NAME_AFTER.match(text, m.start() + len(word)):
            out.append(Name(m.start(), m.start() + len(word), word, "katakana"))
    for m in _KANJI_PERSON.finditer(text):
        name = m.group("name")
        if name in _KANJI_STOP or any(name.endswith(s) for s in _KANJI_STOP) or name in _JA_KANJI_PLACES:
            continue
        out.append(Name(m.start(), m.end(), name, "kanji"))
    return sorted(out, key=lambda n: n.start)


def find_names(text: str) -> list[Name]:
    """Proper names in ``text`` (Latin script and Japanese), in order, one per span."""
    probe = unicodedata.normalize("NFKC", text) if len(unicodedata.normalize("NFKC", text)) == len(text) else text
    names = latin_names(probe) + japanese_names(text)
    names.sort(key=lambda n: n.start)
    out: list[Name] = []
    last = -1
    for n in names:
        if n.start >= last:
            out.append(n)
            last = n.end
    return out
