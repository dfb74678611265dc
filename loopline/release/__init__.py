"""Adapter releases seen from the deployables: the bridge's routing, production observations, publishing."""
