"""Task drafts from production episodes, for any domain: the recorded episode, its replay against a
rebuilt world, the draft itself and the store promotion and the review desk share. Each domain
brings its own world reconstruction (`adapters/<domain>/drafts.py`)."""
