"""Many sessions at once: what each session's events say of it (`facts`), its activity by
quarter hour (`activity`), which sessions a question picks (`listing`), and usage added up
by day, week, month, project, model, agent, machine, session or 5-hour block (`usage`),
each day's usage split by project or model (`stacks`), and the shortest names that tell
sessions apart (`short_names`). The shell's catalog and views import it; it imports the
replay, the lifecycle and the tools of the core.

Pure: a store keeps the facts and the activity at write time, and a view that has only
the events folds them here the same way (a property test holds the two to each other).
"""
