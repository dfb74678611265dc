"""Adapter releases seen from the deployables: the bridge's canary routing and production's observations."""
