"""Adapter releases seen from the deployables: the registry, the bridge's canary routing, production's observations."""
