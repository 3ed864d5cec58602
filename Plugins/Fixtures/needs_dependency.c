/*
 * A guest linked against libapphost_fixture_stub.so (DT_NEEDED). With that
 * library gone, dlopen fails with "libapphost_fixture_stub.so: cannot open
 * shared object file".
 */
#include <apphost/apphost.h>

extern int apphost_fixture_stub_answer(void);

static apphost_status_t init(const apphost_host_t *host)
{
    (void)host;
    return apphost_fixture_stub_answer() == 0 ? APPHOST_OK : APPHOST_ERROR_GUEST_FAILED;
}

static const void *query(const char *interface_id)
{
    (void)interface_id;
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), "org.apphost.fixtures.dependency", "Dependency", "1.0", NULL, NULL, 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {APPHOST_ABI_VERSION_INIT, &descriptor, init, NULL, query};
