"""English and Japanese cue lists for the overclaim rules.

Each list is small and explicit: a cue that is missing costs recall, a cue that
is too broad costs false alarms on every quote claim, and false alarms are the
dearer of the two.
"""

from __future__ import annotations

import re


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- hedges attached to a number -------------------------------------------------------
# Classes: "approx" (about 4x), "upper" (up to 4x, 4倍以下), "lower" (more than 4x, 4倍以上).
# Each prefix class: words (alternatives, joined by \s+ where they have several), then symbols and
# Japanese words, all right before the number (anchored at the end of the text before it).
# NUM_PREFIX_WORDS is read by around.py to know how many pieces a match can span.
NUM_PREFIX_WORDS: dict[str, tuple[str, ...]] = {
    "approx": (
        "about", "approximately", r"approx\.?", "around", "roughly", "nearly", "almost", r"close\s+to", "some",
        r"an\s+estimated", "estimated", "circa", r"ca\.", r"in\s+the\s+region\s+of", r"on\s+the\s+order\s+of",
    ),
    "upper": (
        r"up\s+to", r"as\s+(?:many|much|high|large)\s+as", r"at\s+most", r"no\s+more\s+than", r"less\s+than",
        r"fewer\s+than", "under", "below", r"a\s+maximum\s+of", r"maximum\s+of", r"max\.?", r"not\s+more\s+than",
    ),
    "lower": (
        r"more\s+than", "over", "above", r"at\s+least", r"no\s+fewer\s+than", r"no\s+less\s+than", r"greater\s+than",
        "exceeding", r"upwards\s+of", r"a\s+minimum\s+of", r"minimum\s+of", r"not\s+less\s+than",
    ),
}  # fmt: skip
_NUM_PREFIX_OTHER = {
    "approx": r"|[~～〜≈]\s*|(?:約|およそ|凡そ|おおよそ|ほぼ|概ね|おおむね|だいたい|大体|推定で?|推計で?)\s*)$",
    "upper": r"|[<≤≦]\s*|(?:最大で?|最高で?|多くて|多くとも|高々|せいぜい)\s*)$",
    "lower": r"|[>≥≧]\s*|(?:少なくとも|最低でも?|最小でも)\s*)$",
}
NUM_PREFIX: dict[str, re.Pattern[str]] = {
    cls: re.compile(r"(?:\b(?:" + "|".join(words) + r")\s+" + _NUM_PREFIX_OTHER[cls], re.I)
    for cls, words in NUM_PREFIX_WORDS.items()
}
NUM_SUFFIX: dict[str, re.Pattern[str]] = {
    "approx": re.compile(
        r"^(?:\s*(?:程度|前後|ほど|くらい|ぐらい|位|強|弱|余り?|近く|or\s+so\b)|-ish\b)", re.I
    ),
    "upper": re.compile(r"^\s*(?:以下|未満|以内|まで|を上限|or\s+(?:less|fewer|below)\b|at\s+most\b)", re.I),
    "lower": re.compile(
        r"^(?:\s*(?:以上|超|を超え|を上回|or\s+more\b|or\s+above\b|or\s+greater\b)|\+)", re.I
    ),
}
# Words that can be approximated like a number: "nearly doubled", 「ほぼ半減」.
APPROXIMABLE_EN = re.compile(
    r"\b(?:doubled?|doubling|tripled?|quadrupled?|halved|half|twice|thrice|equal|same|identical|"
    r"all|every|everyone|always|none|never|unanimous(?:ly)?)\b",
    re.I,
)
APPROXIMABLE_JA = re.compile(r"倍増|半減|半分|半数|同じ|同等|同程度|全て|すべて|全員|全部|常に")
# The hedges, one alternative each (a word, or words joined by \s+): hedges.py reads their first words
# to rule a quote out before the patterns run.
WORD_HEDGES_EN = (
    "about", "approximately", "around", "roughly", "nearly", "almost", "virtually", "practically", r"close\s+to",
    r"more\s+or\s+less", "largely", "mostly", "essentially",
)  # fmt: skip
WORD_HEDGES_JA = ("約", "およそ", "ほぼ", "概ね", "おおむね", "ほとんど", "大体", "だいたい")
WORD_HEDGE_EN = re.compile(r"\b(?:" + "|".join(WORD_HEDGES_EN) + r")\s+$", re.I)
WORD_HEDGE_JA = re.compile("(?:" + "|".join(WORD_HEDGES_JA) + r")\s*$")

# --- modality (may -> is) ---------------------------------------------------------------
MODAL_EN = re.compile(
    r"\b(?:may|might|could|possibly|potentially|perhaps|probably|likely|plausibly|conceivably|"
    r"suggests?|suggested|suggesting|hints?\s+that|appears?\s+to|appeared\s+to|seems?\s+to|seemed\s+to|"
    r"tends?\s+to|tended\s+to|(?:is|are|was|were)\s+(?:thought|believed|expected|projected|predicted|"
    r"estimated|assumed|hypothesi[sz]ed)\s+to|preliminary|tentative(?:ly)?)\b",
    re.I,
)
# A statement that carries any of these keeps a hedge or attributes the view: no modality finding.
MODAL_SUPPRESS_EN = re.compile(
    MODAL_EN.pattern
    + r"|\b(?:can|would|should|able\s+to|capable\s+of|possible|possibility|unclear|uncertain|"
    r"argues?|argued|claims?|claimed|proposes?|proposed|speculates?|speculated|hypothes\w+|"
    r"expects?|expected|projects?|projected|predicts?|predicted|forecasts?|estimates?|estimated|"
    r"whether|if|might|reportedly|allegedly|presumably|indicates?|indicated|points?\s+to)\b",
    re.I,
)
ASSOC_EN = re.compile(r"\b(?:associated|association|correlated|correlates?|correlation|linked|link)\b", re.I)
CAUSAL_EN = re.compile(
    r"\b(?:causes?|caused|causing|leads?\s+to|led\s+to|results?\s+in|resulted\s+in|drives?|drove|"
    r"makes?|made|produces?|produced|because\s+of|due\s+to)\b",
    re.I,
)

MODAL_JA = re.compile(
    r"おそらく|恐らく|たぶん|多分|もしかしたら|もしかすると|ひょっとしたら|ひょっとすると|"
    r"と(?:言|い)われ(?:て|る|ま)|と信じられ(?:て|る|ま)|と伝えられ(?:て|る|ま)|"
    r"と思われ|と見込まれ|可能性(?:が|も|は)?(?:ある|あり|高い|示唆|指摘)|可能性を(?:示唆|指摘)|かもしれ(?:ない|ません)|"
    r"と(?:考え|思わ|見|み)られ|と推(?:定|測|察|計)され|と予(?:想|測)され|示唆|し?(?:得|う)る(?![ぁ-ん])|"
    r"あり(?:得|う)る|だろう|でしょう|ようだ|ようです|ようである|らしい|見込み|見通し|とされ(?:る|て|ます)|"
    r"傾向(?:が|に)(?:ある|あり|見られ)|場合が(?:ある|あり)|ことが(?:ある|あり)|おそれ|恐れ|懸念|期待され"
)
MODAL_SUPPRESS_JA = re.compile(
    MODAL_JA.pattern
    + r"|可能|推定|推測|予想|予測|見られ|みられ|思われ|考えられ|と(?:述べ|指摘|主張|報告|提案|説明)|という|とのこと|"
    r"そうだ|そうです|か(?:どうか|は不明)|不明|不確か|疑問"
)
ASSOC_JA = re.compile(r"関連|相関|関係が(?:ある|あり|見られ)")
CAUSAL_JA = re.compile(r"原因|引き起こ|もたら|によって(?:生|起)|のせいで|ため(?:に)?(?:起|生)")


# Hiragana that is not a particle: a hiragana-only cue right after one is inside another word
# (たたいている contains たいてい).
_PARTICLES = "のはがをにでともへや"
_NON_PARTICLE = "".join(chr(c) for c in range(0x3041, 0x3097) if chr(c) not in _PARTICLES)
_G = f"(?<![{_NON_PARTICLE}])"

# --- quantifiers (some -> all) ----------------------------------------------------------
QUANT_EN: list[tuple[int, re.Pattern[str]]] = [
    (
        4,
        re.compile(
            r"\b(?:all(?!\s+(?:but|in\s+all|the\s+same|along|at\s+once))(?<!at\s{1}all)|every|everyone|"
            r"everybody|always|universally|invariably|without\s+exception)\b",
            re.I,
        ),
    ),
    (
        3,
        re.compile(
            r"\b(?:(?<!the\s)(?<!at\s)most(?!\s+(?:of\s+all|likely|recent|recently|notably|important|"
            r"\w+ly\b|\w+est\b))|(?:a|the)\s+majority\s+of|usually|generally|typically|mostly|largely|"
            r"mainly|predominantly|normally|as\s+a\s+rule|more\s+often\s+than\s+not|in\s+most\s+cases|"
            r"in\s+the\s+majority\s+of\s+cases|almost\s+all|nearly\s+all|virtually\s+all|almost\s+every|"
            r"nearly\s+every|almost\s+always|nearly\s+always)\b",
            re.I,
        ),
    ),
    (2, re.compile(r"\b(?:many|often|frequently|commonly|numerous|a\s+lot\s+of|lots\s+of)\b", re.I)),
    (
        1,
        re.compile(
            r"\b(?:some(?!\s+(?:\d|of\s+the\s+most|time\b))|a\s+few|several|certain|a\s+number\s+of|"
            r"a\s+minority\s+of|a\s+subset\s+of|sometimes|occasionally|in\s+some\s+cases|"
            r"in\s+certain\s+cases|a\s+handful\s+of)\b",
            re.I,
        ),
    ),
]
QUANT_JA: list[tuple[int, re.Pattern[str]]] = [
    (
        4,
        re.compile(
            rf"(?<!ほぼ)(?<!ほとんど)(?:全て|{_G}すべて|全部|全員|{_G}あらゆる|常に|必ず(?!しも)|{_G}いつも|例外なく|"
            r"誰もが|誰でも|いずれも|一律に?)"
        ),
    ),
    (
        3,
        re.compile(
            rf"大半|大部分|過半数|{_G}ほとんど|多くの場合|大多数|{_G}おおむね|概ね|通常|{_G}たいてい|大抵|大概|{_G}たいがい|"
            r"一般に|一般的に|主に|"
            r"ほぼ(?:全て|すべて|全員|全部|常に)"
        ),
    ),
    (2, re.compile(rf"多く(?!の場合)|多数|{_G}しばしば|頻繁に|{_G}よく(?=[見使用ある])")),
    (
        1,
        re.compile(
            rf"一部|{_G}いくつか|幾つか|一定数|少数|{_G}ときどき|時々|時折|場合が(?:ある|あり)|ことが(?:ある|あり)|中には"
        ),
    ),
]

# Adverbial qualifiers that restrict how often or how generally something holds: dropping one
# ("usually answers within a day" -> "answers within a day") states the claim without its limit.
QUALIFIER_EN = re.compile(
    r"\b(?:usually|typically|generally|normally|often|frequently|commonly|sometimes|occasionally|mostly|"
    r"largely|mainly|predominantly|in\s+(?:most|many|some|certain)\s+cases|in\s+the\s+majority\s+of\s+cases|"
    r"almost\s+always|nearly\s+always|as\s+a\s+rule|more\s+often\s+than\s+not|in\s+general|on\s+average)\b",
    re.I,
)
QUALIFIER_JA = re.compile(
    rf"通常|一般に|一般的に|{_G}たいてい|大抵|大概|{_G}たいがい|多くの場合|ほとんどの場合|場合によっては|"
    rf"{_G}しばしば|時々|{_G}ときどき|時折|主に|{_G}おおむね|概ね|平均(?:で|して|的に)|一部の|多くの|"
    rf"{_G}ほとんどの|大半の|大部分の"
)

# --- negation ---------------------------------------------------------------------------
# Phrases that contain a negation word but do not negate the claim: removed before looking.
NOT_NEGATION_EN = re.compile(
    r"\b(?:not\s+only|not\s+just|not\s+least|no\s+less\s+than|no\s+fewer\s+than|no\s+more\s+than|"
    r"not\s+more\s+than|not\s+less\s+than|nothing\s+but|no\s+doubt|not\s+to\s+mention|whether\s+or\s+not|"
    r"if\s+not|cannot\s+be\s+(?:ruled\s+out|excluded)|can\s*not\s+be\s+(?:ruled\s+out|excluded)|"
    r"none\s+other\s+than|not\s+un\w+|no\s+matter)\b",
    re.I,
)
NEGATION_EN = re.compile(
    r"\b(?:not|never|no|none|neither|nor|without|cannot|fail(?:s|ed)?\s+to|lack(?:s|ed)?|absence\s+of|"
    r"unable\s+to)\b|n't\b",
    re.I,
)
# The cues whose next content word is the negated predicate ("did not improve"); "no fish" is not one.
VERBAL_NEGATION_EN = re.compile(r"\b(?:not|never|cannot|fail(?:s|ed)?\s+to|unable\s+to)\b|n't\b", re.I)
NOT_NEGATION_JA = re.compile(
    r"少な(?:い|く|かっ)|危な|つまらな|だけでなく|だけではなく|のみならず|に限らず|かもしれな|に違いな|"
    r"にすぎな|に過ぎな|しかな|ほかならな|他ならな|欠かせな|否定できな|否めな|ではないか|のではないか|"
    r"じゃないか|絶えな|やむを得な|やむをえな|ならない|なければ|なくては|いけない|問わず|関わらず|かかわらず|"
    r"思わず|相変わらず|少なからず|間もなく|まもなく|わずか|必ず|はず|ずつ|いずれ|まず|ずっと|構わな|"
    r"たまらな|変わらな|変わりな"
)
# 「教職課程のない」 ("without") is adjectival, not a negated predicate: the rule does not anchor on it.
VERBAL_NEGATION_JA = re.compile(
    r"(?<!の)(?:とは言え(?:な|ま)|とはいえ(?:な|ま)|わけでは(?:な|あり)|(?:の|ん)では(?:な|あり)|とは限ら|ない|なかった|ません|"
    r"[せさけめべえらかわた]ず(?:に|、|。|$))"
)
NEGATION_JA = re.compile(
    r"とは言え(?:な|ま)|とはいえ(?:な|ま)|わけでは(?:な|あり)|とは限ら|ない|なかった|なく|ません|"
    r"[せさけめべえらかわた]ず(?:に|、|。|$)|無い|無かった|無し|なし"
)

# --- scope (a restricting modifier of the noun phrase) ----------------------------------
RESTRICTIVE_EN = _wordset(
    """small large big major minor certain specific selected particular young younger old older elderly
    adult adults male female rural urban domestic foreign local regional national international early late
    initial preliminary low high middle wealthy poor private public online offline mobile paid unpaid
    full part full-time part-time senior junior new experienced novice healthy sick diabetic obese pregnant
    clinical experimental academic corporate industrial commercial educational medical technical
    generative conversational text image language"""
)
EN_NP_BOUNDARY = _wordset(
    """the a an of for among in on at by with to that and or but all most many some these those their its
    our his her every each any no both while whereas as from than"""
)
# Hyphenated words that praise or date a noun rather than restrict it.
NON_RESTRICTIVE_EN = _wordset(
    """cutting-edge state-of-the-art well-known high-quality world-class award-winning so-called built-in
    up-to-date real-time long-term short-term much-needed long-awaited highly-anticipated first-ever
    year-over-year year-on-year all-time"""
)
# Japanese prefixes of a compound that date or frame it rather than restrict it.
JA_NON_RESTRICTIVE_PREFIX = re.compile(r"^(?:当初|現在|今回|当時|従来|近年|今後|将来|最近|昨年|今年|毎年|全体|同)$")
JA_NON_RESTRICTIVE = re.compile(r"^(?:この|その|あの|どの|これらの|それらの|同じ|こうした|そうした|ある)$")

# --- text around a quote (the quote leaves out a hedge that stands next to it) ----------
CONTEXT_MODAL_BEFORE_EN_WORDS = (
    "may", "might", "could", "possibly", "potentially", "perhaps", "probably", "likely", r"(?:appears?|seems?|tends?)\s+to",
    "usually", "typically", "generally", "normally", "often", "frequently", "commonly", "sometimes", "occasionally",
    "mostly", "largely", "mainly", r"in\s+(?:most|many|some)\s+cases,?", r"almost\s+always", r"nearly\s+always",
    r"as\s+a\s+rule,?", r"(?:is|are|was|were)\s+(?:thought|believed|expected|projected|predicted|estimated)\s+to",
)  # fmt: skip
CONTEXT_MODAL_BEFORE_EN = re.compile(r"\b(?:" + "|".join(CONTEXT_MODAL_BEFORE_EN_WORDS) + r")\s+$", re.I)
CONTEXT_NEGATION_BEFORE_EN_WORDS = (
    "not", "never", r"no\s+evidence\s+that", r"little\s+evidence\s+that", r"unclear\s+whether", r"unclear\s+if",
    r"unlikely\s+that", r"untrue\s+that", r"false\s+that", "whether",
)  # fmt: skip
CONTEXT_NEGATION_BEFORE_EN = re.compile(r"(?:\b(?:" + "|".join(CONTEXT_NEGATION_BEFORE_EN_WORDS) + r")|n't)\s+$", re.I)
CONTEXT_MODAL_AFTER_JA = re.compile(
    r"^(?:場合が多|ことが多|場合もあ|こともあ|ものと(?:み|思わ|考え)られ|と思われ|と見込まれ|傾向が|可能性|かもしれ|と(?:考え|思わ|見|み)られ|と推(?:定|測|察)|と予(?:想|測)|とされ|ようだ|ようで|らしい|"
    r"だろう|でしょう|恐れ|おそれ|傾向|見込み|場合が|ことが(?:ある|あり))"
)
CONTEXT_NEGATION_AFTER_JA = re.compile(
    r"^(?:とは言え(?:な|ま)|とはいえ(?:な|ま)|わけでは(?:な|あり)|とは限ら|かどうか|か否か|ない|なかった|ません)"
)
CONTEXT_MODAL_AFTER_EN = re.compile(
    r"^,?\s+(?:at\s+least\s+in\s+part|in\s+(?:some|most|many)\s+cases|in\s+part|usually|typically|generally|"
    r"on\s+average|most\s+of\s+the\s+time|as\s+a\s+rule)\b",
    re.I,
)
# Japanese hedges and restricting qualifiers right before a quote: おそらく「…」, 通常「…」, 多くの場合「…」.
CONTEXT_HEDGE_BEFORE_JA = re.compile(
    r"(?:おそらく|恐らく|たぶん|多分|通常は?|一般に|一般的に|たいてい|大抵|大概|たいがい|多くの場合|ほとんどの場合|"
    r"場合によっては|概ね|おおむね|ほぼ|約|およそ|おおよそ|だいたい|大体)[、,]?\s*$"
)
