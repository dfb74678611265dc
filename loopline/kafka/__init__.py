"""The broker as every deployable meets it: client settings, topic creation, a MACed publisher."""
