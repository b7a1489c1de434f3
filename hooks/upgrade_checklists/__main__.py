from upgrade_checklists.cli import main

raise SystemExit(main())
