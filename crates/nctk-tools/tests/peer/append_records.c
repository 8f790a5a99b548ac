/* Opens a netCDF file for writing with netCDF-C and appends to it: two
 * records to every record variable (bytes 0, 1, 2, ... modulo 97, each
 * variable and record on from where the last left off, so the values
 * depend only on the file's schema), a global attribute, an attribute on
 * every variable, and a new record variable. Usage: append_records FILE.
 * Exits non-zero naming the call that failed. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    int status_ = (call);                                                  \
    if (status_ != NC_NOERR) {                                             \
      fprintf(stderr, "%s: %s: %s\n", path, #call, nc_strerror(status_));  \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: append_records FILE\n");
    return 2;
  }
  const char *path = argv[1];
  int ncid, nvars, unlimdim, varid, newvar;
  size_t nrecs;
  unsigned counter = 0;
  CHECK(nc_open(path, NC_WRITE, &ncid));
  CHECK(nc_inq_nvars(ncid, &nvars));
  CHECK(nc_inq_unlimdim(ncid, &unlimdim));
  if (unlimdim < 0) {
    fprintf(stderr, "%s: no unlimited dimension\n", path);
    return 1;
  }
  CHECK(nc_inq_dimlen(ncid, unlimdim, &nrecs));
  for (varid = 0; varid < nvars; varid++) {
    int ndims, dimids[NC_MAX_VAR_DIMS], d;
    nc_type type;
    size_t size, start[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], n = 1;
    CHECK(nc_inq_var(ncid, varid, NULL, &type, &ndims, dimids, NULL));
    if (ndims == 0 || dimids[0] != unlimdim) continue;
    CHECK(nc_inq_type(ncid, type, NULL, &size));
    for (d = 0; d < ndims; d++) {
      start[d] = 0;
      if (d == 0) {
        start[d] = nrecs;
        count[d] = 2;
      } else {
        CHECK(nc_inq_dimlen(ncid, dimids[d], &count[d]));
      }
      n *= count[d];
    }
    unsigned char *bytes = malloc(n * size + 1);
    for (size_t i = 0; i < n * size; i++) bytes[i] = (unsigned char)(counter++ % 97);
    CHECK(nc_put_vara(ncid, varid, start, count, bytes));
    free(bytes);
  }
  CHECK(nc_redef(ncid));
  CHECK(nc_put_att_text(ncid, NC_GLOBAL, "appended_by", 8, "netCDF-C"));
  for (varid = 0; varid < nvars; varid++) {
    int value = varid;
    CHECK(nc_put_att_int(ncid, varid, "appended_index", NC_INT, 1, &value));
  }
  CHECK(nc_def_var(ncid, "appended_var", NC_INT, 1, &unlimdim, &newvar));
  CHECK(nc_enddef(ncid));
  {
    size_t start = 0, count;
    CHECK(nc_inq_dimlen(ncid, unlimdim, &count));
    int *values = malloc((count + 1) * sizeof(int));
    for (size_t i = 0; i < count; i++) values[i] = (int)(i * 3 + 1);
    CHECK(nc_put_vara_int(ncid, newvar, &start, &count, values));
    free(values);
  }
  CHECK(nc_close(ncid));
  return 0;
}
