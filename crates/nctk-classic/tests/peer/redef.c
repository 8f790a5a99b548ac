/* Scenarios written with netCDF-C, mirrored by tests/redefine.rs with nctk;
 * the files must be byte-identical.  Usage: redef SCENARIO PATH CMODE
 * where CMODE is 1 (CDF-1), 2 (CDF-2) or 5 (CDF-5). */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { int s_ = (x); if (s_) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, nc_strerror(s_)); exit(1); } } while (0)

static int cmode(const char *m) {
    if (!strcmp(m, "2")) return NC_CLOBBER | NC_64BIT_OFFSET;
    if (!strcmp(m, "5")) return NC_CLOBBER | NC_64BIT_DATA;
    return NC_CLOBBER;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    const char *sc = argv[1], *path = argv[2];
    int nc, x, t, n, fx, ry, rz, b, c, v, a, old;
    size_t st[2], ct[2];
    if (!strcmp(sc, "grow")) {
        int ix[5] = {1, 2, 3, 4, 5};
        float fy[15];
        short sz[3] = {7, 8, 9};
        double dd[5] = {0.5, 1.5, 2.5, 3.5, 4.5};
        signed char bb = 42;
        for (int i = 0; i < 15; i++) fy[i] = i * 0.25f;
        CHECK(nc_create(path, cmode(argv[3]), &nc));
        CHECK(nc_def_dim(nc, "x", 5, &x));
        CHECK(nc_def_dim(nc, "t", NC_UNLIMITED, &t));
        CHECK(nc_put_att_text(nc, NC_GLOBAL, "title", 1, "a"));
        CHECK(nc_def_var(nc, "fx", NC_INT, 1, &x, &fx));
        int d2[2] = {t, x};
        CHECK(nc_def_var(nc, "ry", NC_FLOAT, 2, d2, &ry));
        CHECK(nc_def_var(nc, "rz", NC_SHORT, 1, &t, &rz));
        CHECK(nc_enddef(nc));
        CHECK(nc_put_var_int(nc, fx, ix));
        st[0] = 0; st[1] = 0; ct[0] = 3; ct[1] = 5;
        CHECK(nc_put_vara_float(nc, ry, st, ct, fy));
        CHECK(nc_put_vara_short(nc, rz, st, ct, sz));
        CHECK(nc_close(nc));
        CHECK(nc_open(path, NC_WRITE, &nc));
        CHECK(nc_redef(nc));
        const char *hist = "a history line long enough to make the header grow by a lot";
        CHECK(nc_put_att_text(nc, NC_GLOBAL, "history", strlen(hist), hist));
        CHECK(nc_def_var(nc, "new_fixed", NC_DOUBLE, 1, &x, &a));
        CHECK(nc_def_var(nc, "new_rec", NC_BYTE, 1, &t, &b));
        CHECK(nc_enddef(nc));
        CHECK(nc_put_var_double(nc, a, dd));
        st[0] = 1; ct[0] = 1;
        CHECK(nc_put_vara_schar(nc, b, st, ct, &bb));
        CHECK(nc_close(nc));
    } else if (!strcmp(sc, "single")) {
        signed char data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        int ci[2] = {100, 200};
        CHECK(nc_create(path, cmode(argv[3]), &nc));
        CHECK(nc_def_dim(nc, "t", NC_UNLIMITED, &t));
        CHECK(nc_def_dim(nc, "n", 3, &n));
        int d2[2] = {t, n};
        CHECK(nc_def_var(nc, "b", NC_BYTE, 2, d2, &b));
        CHECK(nc_enddef(nc));
        st[0] = 0; st[1] = 0; ct[0] = 4; ct[1] = 3;
        CHECK(nc_put_vara_schar(nc, b, st, ct, data));
        CHECK(nc_close(nc));
        CHECK(nc_open(path, NC_WRITE, &nc));
        CHECK(nc_redef(nc));
        CHECK(nc_put_att_text(nc, b, "units", 1, "m"));
        CHECK(nc_def_var(nc, "c", NC_INT, 1, &t, &c));
        CHECK(nc_enddef(nc));
        st[0] = 0; ct[0] = 2;
        CHECK(nc_put_vara_int(nc, c, st, ct, ci));
        CHECK(nc_close(nc));
    } else if (!strcmp(sc, "append")) {
        int d[4] = {1, 2, 3, 4}, e[2] = {9, 10};
        CHECK(nc_create(path, cmode(argv[3]), &nc));
        CHECK(nc_def_dim(nc, "t", NC_UNLIMITED, &t));
        CHECK(nc_def_dim(nc, "x", 2, &x));
        int d2[2] = {t, x};
        CHECK(nc_def_var(nc, "v", NC_INT, 2, d2, &v));
        CHECK(nc_def_var(nc, "w", NC_SHORT, 2, d2, &a));
        CHECK(nc_enddef(nc));
        st[0] = 0; st[1] = 0; ct[0] = 2; ct[1] = 2;
        CHECK(nc_put_vara_int(nc, v, st, ct, d));
        CHECK(nc_close(nc));
        CHECK(nc_open(path, NC_WRITE, &nc));
        st[0] = 4; ct[0] = 1;
        CHECK(nc_put_vara_int(nc, v, st, ct, e));
        CHECK(nc_close(nc));
    } else if (!strcmp(sc, "nofill")) {
        short s[3] = {1, 2, 3};
        CHECK(nc_create(path, cmode(argv[3]), &nc));
        CHECK(nc_set_fill(nc, NC_NOFILL, &old));
        CHECK(nc_def_dim(nc, "x", 3, &x));
        CHECK(nc_def_var(nc, "a", NC_SHORT, 1, &x, &a));
        CHECK(nc_def_var(nc, "b", NC_INT, 1, &x, &b));
        CHECK(nc_enddef(nc));
        CHECK(nc_put_var_short(nc, a, s));
        CHECK(nc_close(nc));
    } else {
        return 2;
    }
    return 0;
}
