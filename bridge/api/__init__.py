"""The bridge's HTTP API: agents run episodes, reviewers decide task drafts and label episodes,
operators read capture's state (`bridge.api.app.create_app`)."""
