"""The language layer: what people's own words mean — what a sentence asks for (intents, diets),
townships and dates — read from vocabulary kept as data, shared by the commands, the offline rules
and the tools. It may import ``context`` and ``listings`` only."""
