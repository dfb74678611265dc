"""The verifier card: how each verifier was validated and attacked, in one report."""
