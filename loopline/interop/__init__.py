"""Loopline's archive in the formats other stacks read: training files, ATIF trajectories, OTel
traces. The composition root reads the archive (`bridge.store`) and hands `schemas` events to
`training` and the exporters, which never import the bridge."""
