"""Lexicons of the scope slots (English and Japanese): who is counted, where, and cue words.

Population classes form a small hierarchy (``PARENT``): an individual
developer is a developer and an individual; a large firm is a firm. Two
classes are *compatible* when one is an ancestor of the other (the evidence is
then wider or narrower than the claim), *different* otherwise. ``SOFT``
classes (respondents, users, participants) say little about who was counted:
a comparison with them is never HIGH on its own.

Terms are matched longest first, so 個人開発者 wins over 個人 and
"individual developers" over "developers".
"""

from __future__ import annotations

import re

# class id -> (English label, Japanese label)
POPULATION_LABEL: dict[str, tuple[str, str]] = {
    "individual_developer": ("individual developers", "個人開発者"),
    "company_developer": ("developers employed by companies", "企業の開発者"),
    "developer": ("developers", "開発者"),
    "employee": ("employees inside companies", "企業の社員・従業員"),
    "individual": ("individuals / the general public", "個人・一般の人"),
    "sole_proprietor": ("sole proprietors / freelancers", "個人事業主・フリーランス"),
    "firm": ("companies (firms)", "企業"),
    "large_firm": ("large companies", "大企業"),
    "sme": ("small and medium-sized companies", "中小企業"),
    "household": ("households", "世帯"),
    "student": ("students", "学生"),
    "university_student": ("university students", "大学生"),
    "pupil": ("school pupils", "児童・生徒"),
    "teacher": ("teachers", "教員"),
    "patient": ("patients", "患者"),
    "child": ("children", "子ども"),
    "older_adult": ("older adults", "高齢者"),
    "municipality": ("municipalities / local governments", "自治体"),
    "school": ("schools", "学校"),
    "hospital": ("hospitals", "病院"),
    "user": ("users", "利用者"),
    "respondent": ("respondents", "回答者"),
    "health_worker": ("doctors and nurses", "医師・看護師"),
    "clinic": ("clinics and practices", "診療所"),
}

PARENT: dict[str, tuple[str, ...]] = {
    "individual_developer": ("developer", "individual"),
    "company_developer": ("developer", "employee"),
    "employee": ("individual",),
    "sole_proprietor": ("individual",),
    "large_firm": ("firm",),
    "sme": ("firm",),
    "university_student": ("student",),
    "student": ("individual",),
    "pupil": ("student", "child"),
    "teacher": ("individual",),
    "patient": ("individual",),
    "health_worker": ("employee",),
    "child": ("individual",),
    "older_adult": ("individual",),
}

SOFT = frozenset({"respondent", "user"})

POPULATION_JA: dict[str, str] = {
    "個人開発者": "individual_developer",
    "個人開発": "individual_developer",
    "個人のエンジニア": "individual_developer",
    "個人の開発者": "individual_developer",
    "インディー開発者": "individual_developer",
    "インディーゲーム開発者": "individual_developer",
    "フリーランスの開発者": "individual_developer",
    "フリーランスエンジニア": "individual_developer",
    "個人事業主": "sole_proprietor",
    "フリーランス": "sole_proprietor",
    "企業の開発者": "company_developer",
    "企業の中の開発者": "company_developer",
    "企業内の開発者": "company_developer",
    "企業の中の開発": "employee",
    "企業内開発": "employee",
    "社内の開発者": "company_developer",
    "社内エンジニア": "company_developer",
    "開発者": "developer",
    "エンジニア": "developer",
    "プログラマー": "developer",
    "プログラマ": "developer",
    "正社員": "employee",
    "社員": "employee",
    "従業員": "employee",
    "会社員": "employee",
    "職員": "employee",
    "就業者": "employee",
    "労働者": "employee",
    "ビジネスパーソン": "employee",
    "勤め人": "employee",
    "個人": "individual",
    "消費者": "individual",
    "生活者": "individual",
    "国民": "individual",
    "市民": "individual",
    "住民": "individual",
    "成人": "individual",
    "一般の人": "individual",
    "大企業": "large_firm",
    "中小企業": "sme",
    "小規模事業者": "sme",
    "企業": "firm",
    "会社": "firm",
    "法人": "firm",
    "事業所": "firm",
    "事業者": "firm",
    "世帯": "household",
    "家計": "household",
    "大学生": "university_student",
    "学生": "student",
    "生徒": "pupil",
    "児童": "pupil",
    "教員": "teacher",
    "教師": "teacher",
    "講師": "teacher",
    "教授": "teacher",
    "患者": "patient",
    "医師": "health_worker",
    "看護師": "health_worker",
    "診療所": "clinic",
    "医療機関": "clinic",
    "子ども": "child",
    "子供": "child",
    "高齢者": "older_adult",
    "自治体": "municipality",
    "市町村": "municipality",
    "学校": "school",
    "病院": "hospital",
    "利用者": "user",
    "ユーザー": "user",
    "回答者": "respondent",
    "調査対象者": "respondent",
    "回答企業": "firm",
    "回答した企業": "firm",
}

# English: lower-case, plural and singular; multiword terms first by length
POPULATION_EN: dict[str, str] = {
    "individual developers": "individual_developer",
    "independent developers": "individual_developer",
    "indie developers": "individual_developer",
    "solo developers": "individual_developer",
    "hobbyist developers": "individual_developer",
    "freelance developers": "individual_developer",
    "freelancers": "sole_proprietor",
    "sole proprietors": "sole_proprietor",
    "self-employed": "sole_proprietor",
    "company developers": "company_developer",
    "in-house developers": "company_developer",
    "corporate developers": "company_developer",
    "developers": "developer",
    "software engineers": "developer",
    "engineers": "developer",
    "programmers": "developer",
    "employees": "employee",
    "staff": "employee",
    "workers": "employee",
    "office workers": "employee",
    "white-collar workers": "employee",
    "civil servants": "employee",
    "individuals": "individual",
    "consumers": "individual",
    "adults": "individual",
    "citizens": "individual",
    "residents": "individual",
    "the public": "individual",
    "the general public": "individual",
    "large firms": "large_firm",
    "large companies": "large_firm",
    "large enterprises": "large_firm",
    "big companies": "large_firm",
    "small businesses": "sme",
    "small firms": "sme",
    "smes": "sme",
    "small and medium-sized enterprises": "sme",
    "small and medium-sized companies": "sme",
    "firms": "firm",
    "companies": "firm",
    "businesses": "firm",
    "enterprises": "firm",
    "employers": "firm",
    "organisations": "firm",
    "organizations": "firm",
    "households": "household",
    "university students": "university_student",
    "college students": "university_student",
    "undergraduates": "university_student",
    "students": "student",
    "pupils": "pupil",
    "schoolchildren": "pupil",
    "teachers": "teacher",
    "lecturers": "teacher",
    "professors": "teacher",
    "instructors": "teacher",
    "faculty members": "teacher",
    "patients": "patient",
    "doctors": "health_worker",
    "physicians": "health_worker",
    "nurses": "health_worker",
    "clinics": "clinic",
    "practices": "clinic",
    "children": "child",
    "older adults": "older_adult",
    "the elderly": "older_adult",
    "seniors": "older_adult",
    "municipalities": "municipality",
    "local governments": "municipality",
    "schools": "school",
    "hospitals": "hospital",
    "users": "user",
    "respondents": "respondent",
    "participants": "respondent",
    "survey participants": "respondent",
}

# a population word used as a manner or attribute, not as who is counted
JA_NOT_POPULATION_AFTER = re.compile(
    r"^(?:として|的|で(?:は)?なく|単位|情報|差|名義|向け|利用|版|用|所有|負担|消費|間|側|労働|手当|福祉|虐待|時代|期)"
)
JA_NOT_POPULATION_BEFORE = re.compile(r"(?:各|一|同|自|他|弊|当|貴|入|出|退|御)$")
EN_NOT_POPULATION_BEFORE = re.compile(r"\b(?:as|by|per)\s+(?:\w+\s+)?$", re.IGNORECASE)

# prepositions after which an English population word modifies another (employees *at firms*)
EN_MODIFIER_PREP = re.compile(
    r"\b(?:at|in|inside|within|across|for|from|by|with|to|of)\s+(?:(?:the|their|its|all|surveyed|large|small|\w+-sized)\s+){0,2}$",
    re.IGNORECASE,
)
EN_QUANTITY_OF = re.compile(
    r"(?:%|\bpercent|\bper cent|\bshare|\bproportion|\bmajority|\bminority|\bhalf|\bthird|\bquarter|\bthirds|"
    r"\bquarters|\bfifth|\bmost|\bmany|\bnumber|\bfraction|\bpercentage|\bone in \w+)\s+(?:of|among)\s+"
    r"(?:(?:the|all|those|these|surveyed|responding|polled|participating|their|its)\s+)*$",
    re.IGNORECASE,
)
EN_AMONG = re.compile(r"\bamong\s+(?:(?:the|all|those|these|surveyed|responding|polled)\s+)*$", re.IGNORECASE)

# sample definitions: who the survey asked (resolves "respondents")
SAMPLE_JA = re.compile(r"を対象に|を対象と|に対して(?:実施|行)|にアンケート|対象は|対象者は|を調査")
SAMPLE_EN = re.compile(
    r"\b(?:surveyed|survey of|sample of|poll of|polled|interviewed|questionnaire (?:to|of)|respondents were|"
    r"participants were|we asked|study of|asked)\b",
    re.IGNORECASE,
)

# places: id -> (English label, parent)
PLACE: dict[str, tuple[str, str | None]] = {
    "global": ("worldwide", None),
    "asia": ("Asia", "global"),
    "europe": ("Europe", "global"),
    "eu": ("the EU", "europe"),
    "north_america": ("North America", "global"),
    "japan": ("Japan", "asia"),
    "tokyo": ("Tokyo", "japan"),
    "osaka": ("Osaka", "japan"),
    "china": ("China", "asia"),
    "korea": ("South Korea", "asia"),
    "india": ("India", "asia"),
    "us": ("the United States", "north_america"),
    "canada": ("Canada", "north_america"),
    "uk": ("the United Kingdom", "europe"),
    "germany": ("Germany", "eu"),
    "france": ("France", "eu"),
}

PLACE_JA: dict[str, str] = {
    "世界全体": "global", "全世界": "global", "世界": "global", "各国": "global", "グローバル": "global",
    "アジア": "asia", "欧州": "europe", "ヨーロッパ": "europe", "北米": "north_america",
    "日本国内": "japan", "日本": "japan", "国内": "japan", "全国": "japan", "我が国": "japan", "わが国": "japan",
    "東京都": "tokyo", "東京": "tokyo", "大阪府": "osaka", "大阪": "osaka",
    "中国": "china", "韓国": "korea", "インド": "india",
    "米国": "us", "アメリカ": "us", "在米": "us", "カナダ": "canada",
    "英国": "uk", "イギリス": "uk", "ドイツ": "germany", "フランス": "france",
}  # fmt: skip

PLACE_EN: dict[str, str] = {
    "worldwide": "global", "globally": "global", "around the world": "global", "across the world": "global",
    "global": "global", "in the world": "global",
    "asia": "asia", "asian": "asia", "europe": "europe", "european": "europe", "the eu": "eu",
    "north america": "north_america",
    "japan": "japan", "japanese": "japan", "tokyo": "tokyo", "osaka": "osaka",
    "china": "china", "chinese": "china", "south korea": "korea", "korea": "korea", "korean": "korea",
    "india": "india", "indian": "india",
    "the united states": "us", "united states": "us", "the us": "us", "the u.s.": "us", "u.s.": "us",
    "america": "us", "american": "us", "usa": "us", "canada": "canada", "canadian": "canada",
    "the united kingdom": "uk", "united kingdom": "uk", "the uk": "uk", "britain": "uk", "british": "uk",
    "germany": "germany", "german": "germany", "france": "france", "french": "france",
}  # fmt: skip

# measures
GROWTH_AFTER_JA = re.compile(
    r"^(?:\s*(?:の)?(?:増加|増|減少|減|上昇|低下|伸び|成長|アップ|ダウン|拡大|縮小)|に(?:増え|増加|拡大|伸び|減)|増えた)"
)
GROWTH_BEFORE_JA = re.compile(
    r"(?:前年比|前年同期比|前期比|比で|から|伸び率は?|増加率は?|成長率は?|上昇率は?)\s*(?:約|およそ|ほぼ)?$"
)
GROWTH_AFTER_EN = re.compile(
    r"^(?:\s*(?:per ?cent|percent|%)?)\s*(?:increase|rise|growth|decline|decrease|drop|jump|gain|higher|lower|more|less|fewer|year-on-year|yoy)\b",
    re.IGNORECASE,
)
GROWTH_BEFORE_EN = re.compile(
    r"\b(?:grew|grown|grows|rose|risen|rises|increased|increases|fell|fallen|falls|declined|declines|decreased|"
    r"jumped|climbed|dropped|surged|soared|expanded|gained|shrank|slipped|raised|boosted|lifted|cut|reduced|lowered|improved|growth of|increase of|rise of|decline of|up|down)"
    r"(?:\s+[\w']+){0,3}?\s+(?:by\s+)?(?:about|around|nearly|almost|some|roughly)?\s*$",
    re.IGNORECASE,
)
SHARE_AFTER_JA = re.compile(r"^(?:\s*(?:が|を占め|に(?:当た|あた|のぼ|上)|の(?:企業|社員|人|回答者)|は))")
AVERAGE_BEFORE = re.compile(
    r"(?:平均|中央値|average|mean|median)\s*(?:は|で|of|was|is|were)?\s*(?:約|about|around)?\s*$",
    re.IGNORECASE,
)

# causal and correlational wording
CAUSAL_EN = re.compile(
    r"\b(?:causes?|caused|causing|leads? to|led to|leading to|results? in|resulted in|drives?|drove|driven by|"
    r"because of|due to|thanks to|as a result of|boosts?|boosted|improves?|improved|reduces?|reduced|raise[sd]?|"
    r"lower(?:s|ed)|prevents?|prevented|makes? \w+ (?:more|less)|effect of|impact of|increases? the|decreases? the)\b",
    re.IGNORECASE,
)
CORRELATIONAL_EN = re.compile(
    r"\b(?:associated with|associations?\b|correlat\w*|linked (?:to|with)|link between|related to|"
    r"relationship between|tend(?:ed|s)? to|more likely|less likely|co-occur\w*|coincided with|went hand in hand)\b",
    re.IGNORECASE,
)
EXPERIMENT_EN = re.compile(
    r"\b(?:randomi[sz]ed|controlled (?:trial|experiment)|experiment\w*|RCT|intervention)\b", re.IGNORECASE
)
CAUSAL_JA = re.compile(
    r"(?:原因|ことで|ことにより|引き起こ|もたら|によって(?:\S{0,12})(?:増|減|向上|改善|低下|上昇)|ため(?:に)?(?:\S{0,8})(?:増|減)|せいで|おかげで|"
    r"効果が(?:ある|あった|見られ)|向上させ|改善させ|押し上げ|引き上げ|引き下げ|につながる|につながった|につながって|"
    r"を高める|を高めた|を減らす|を減らした|を下げる|を下げた|が要因)"
)
CORRELATIONAL_JA = re.compile(
    r"(?:関連|相関|関係が(?:ある|あった|見られ)|傾向が(?:ある|あった|見られ)|傾向に|(?:人|者|員|企業|社|世帯|生徒|学生)ほど|ほど[^。]{0,30}(?:高|多|低|少|長|短))"
)
EXPERIMENT_JA = re.compile(r"(?:無作為|ランダム化|比較試験|実験|介入)")
# explicit causal connectives: a statement using one asserts a cause even when the source is silent
CAUSAL_STRONG = re.compile(
    r"\b(?:causes?|caused|leads? to|led to|results? in|resulted in|because of|due to|as a result of)\b|"
    r"原因|引き起こ|もたら|につなが|が要因",
    re.IGNORECASE,
)
