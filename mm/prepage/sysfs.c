// SPDX-License-Identifier: GPL-2.0
/*
 * prepage tunables in /sys/kernel/mm/prepage/, one value a file, and
 * the system-wide counters.
 */

#define pr_fmt(fmt) "prepage-sysfs: " fmt

#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/prepage.h>
#include <linux/sysfs.h>

#include "internal.h"

/* "0" or "1", with an optional newline: nothing else means on or off. */
static int prepage_parse_onoff(const char *buf, bool *on)
{
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || val > 1)
		return -EINVAL;
	*on = val;
	return 0;
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", static_key_enabled(&prepage_key));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool on;
	int err;

	if (prepage_parse_onoff(buf, &on))
		return -EINVAL;
	if (on) {
		err = prepage_enable();
		if (err)
			return err;
	} else {
		prepage_disable();
	}
	return count;
}

static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);

/**
 * prepage_switch_show() - show an on/off tunable
 * @kobj:	the directory of the tunable
 * @attr:	the &prepage_switch.attr of the tunable
 * @buf:	where to show it
 *
 * Return: the bytes shown.
 */
ssize_t prepage_switch_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct prepage_switch *sw = container_of(attr, struct prepage_switch,
						 attr);

	return sysfs_emit(buf, "%d\n", READ_ONCE(*sw->val));
}

/**
 * prepage_switch_store() - set an on/off tunable
 * @kobj:	the directory of the tunable
 * @attr:	the &prepage_switch.attr of the tunable
 * @buf:	"0" or "1"
 * @count:	the size of @buf
 *
 * Return: @count, or -EINVAL and nothing changed.
 */
ssize_t prepage_switch_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct prepage_switch *sw = container_of(attr, struct prepage_switch,
						 attr);
	bool on;

	if (prepage_parse_onoff(buf, &on))
		return -EINVAL;
	WRITE_ONCE(*sw->val, on);
	return count;
}

/**
 * prepage_knob_show() - show a numeric tunable
 * @kobj:	the directory of the tunable
 * @attr:	the &prepage_knob.attr of the tunable
 * @buf:	where to show it
 *
 * Return: the bytes shown.
 */
ssize_t prepage_knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct prepage_knob *knob = container_of(attr, struct prepage_knob,
						 attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*knob->val));
}

/**
 * prepage_knob_store() - set a numeric tunable
 * @kobj:	the directory of the tunable
 * @attr:	the &prepage_knob.attr of the tunable
 * @buf:	a number, within the tunable's bounds
 * @count:	the size of @buf
 *
 * Return: @count, or -EINVAL and nothing changed.
 */
ssize_t prepage_knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct prepage_knob *knob = container_of(attr, struct prepage_knob,
						 attr);
	unsigned int val;

	if (kstrtouint(buf, 0, &val) || val < knob->min || val > knob->max)
		return -EINVAL;
	WRITE_ONCE(*knob->val, val);
	return count;
}

/* Kilobytes a window may bring in; 0 prepages nothing. */
PREPAGE_KNOB(max_switch_kbytes, max_switch_kbytes, 0, UINT_MAX);
/* Start the side the app waited on first before the other. */
PREPAGE_SWITCH(order_sides, order_sides);

/*
 * The counters of every address space since boot, one "key value" a line
 * with the keys of /proc/<pid>/prepage_stat, as a node's vmstat file
 * shows its counters: a snapshot that is read in one go. Only one app
 * switches at a time, so what they gain around another app's window is
 * that window's counts: which pages of its files were cached. They are
 * root's alone (0400), as the per-process files are their manager's.
 */
static ssize_t stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < NR_PREPAGE_STAT; i++)
		len += sysfs_emit_at(buf, len, "%s %lu\n", prepage_stat_name(i),
				     prepage_events_sum(i));
	return len;
}

static struct kobj_attribute stat_attr = __ATTR(stat, 0400, stat_show, NULL);

static struct attribute *prepage_attrs[] = {
	&enabled_attr.attr,
	&stat_attr.attr,
	&max_switch_kbytes_knob.attr.attr,
	&order_sides_switch.attr.attr,
	NULL,
};

static const struct attribute_group prepage_attr_group = {
	.attrs = prepage_attrs,
};

static struct kobject *prepage_kobj;

/*
 * /sys/kernel/mm/prepage: the core's files, and a directory for each
 * backend's, named as the backend, as transparent_hugepage has one for
 * khugepaged's.
 */
static int __init prepage_sysfs_init(void)
{
	const struct prepage_ops *ops;
	unsigned int i;
	int err;

	prepage_kobj = kobject_create_and_add("prepage", mm_kobj);
	if (!prepage_kobj) {
		pr_err("cannot create /sys/kernel/mm/prepage\n");
		return -ENOMEM;
	}
	err = sysfs_create_group(prepage_kobj, &prepage_attr_group);
	for_each_prepage_ops(ops, i) {
		if (err)
			break;
		if (ops->attrs)
			err = sysfs_create_group(prepage_kobj, ops->attrs);
	}
	if (err) {
		pr_err("cannot create /sys/kernel/mm/prepage: %d\n", err);
		kobject_put(prepage_kobj);
		prepage_kobj = NULL;
	}
	return err;
}

/* After the backends registered (subsys_initcall). */
subsys_initcall_sync(prepage_sysfs_init);
