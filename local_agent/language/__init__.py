"""The language layer: what people's own words mean (townships, dates), shared by the offline rules and
the tools. It may import ``context`` and ``listings`` only."""
