"""The bridge deployable (`loopline bridge serve`): its settings, its composition and its serving."""
