from upgrade_checklists.cli import entry

entry()
