"""The streaming deployable (`loopline streams worker`, `replay`, `audit verify`) and its event keyring."""
