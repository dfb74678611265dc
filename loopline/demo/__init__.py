"""`loopline demo`: the production bridge end to end on the embedded stack."""
