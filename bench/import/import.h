/* --import-nccl-tests: the mode main() hands over to; prints its own
 * errors and returns the exit status. */
#ifndef CB_IMPORT_RUN_H
#define CB_IMPORT_RUN_H

/* --import-nccl-tests FILE --json OUT: nccl-tests' output as collbench's
 * records (bench/import/), also without MPI. */
struct cb_import_cli {
  const char *input, *json_path, *csv_path;
  const char *op; /* when the file does not say which collective ran */
};

int cb_import_run(const struct cb_import_cli *c);

#endif
