"""The words players read: events, turns and tables told in sentences, for every front end.

One module, ``noreturn.text.narrate``, holds every shared sentence, so a translation has one
place to read. This layer imports the engine only (its gates ``view`` and ``observe`` decide
what a reader may see; the words never do).
"""
