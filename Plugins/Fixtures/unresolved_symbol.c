/*
 * A guest whose init calls a function that no library defines. A shared
 * library may link with undefined symbols; dlopen(RTLD_NOW) must then fail
 * with "undefined symbol: apphost_fixture_function_nobody_defines".
 */
#include <apphost/apphost.h>

extern int apphost_fixture_function_nobody_defines(void);

static apphost_status_t init(const apphost_host_t *host)
{
    (void)host;
    return apphost_fixture_function_nobody_defines() == 0 ? APPHOST_OK : APPHOST_ERROR_GUEST_FAILED;
}

static const void *query(const char *interface_id)
{
    (void)interface_id;
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), "org.apphost.fixtures.unresolved", "Unresolved", "1.0", NULL, NULL, 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {APPHOST_ABI_VERSION_INIT, &descriptor, init, NULL, query};
