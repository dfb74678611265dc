"""The bridge API's routes, one router per concern; `create_app` mounts them with the label routes."""
