// The error of `roundtable migrate` when it will not copy: kept apart so the CLI loads no PostgreSQL code to name it.
export class MigrationRefused extends Error {}
