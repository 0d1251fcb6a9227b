"""Python metrics for the English example (loaded with --metrics; never from the ledger).

wowChangePct is seed 000's week-over-week change: with no clicks in the
previous week there is no finite change, and the gate must fail closed.
"""

import math

from claimledger import metric


@metric("wowChangePct")
def wow_change_pct(data):
    prev = data.scalar("SELECT sum(clicks) FROM daily WHERE week = 'prev'")
    cur = data.scalar("SELECT sum(clicks) FROM daily WHERE week = 'this'")
    return math.nan if prev == 0 else (cur - prev) / prev * 100
