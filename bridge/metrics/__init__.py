"""What the bridge and the stream workers report to Prometheus, read when `/metrics` is scraped.

Every collector reads state that already exists (capture's relay counters and outbox files, the
archive and projections, the topic's watermarks) when Prometheus asks, so nothing on the agent's
path does metrics work. `prometheus_client`'s registry renders them in the text format.
"""
