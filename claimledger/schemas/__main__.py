from claimledger.schemas import write_ledger_schema

write_ledger_schema()
