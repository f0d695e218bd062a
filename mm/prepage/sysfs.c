// SPDX-License-Identifier: GPL-2.0
/*
 * prepage tunables in /sys/kernel/mm/prepage/, one value a file.
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
 * struct prepage_switch - an on/off tunable
 * @attr:	its sysfs file
 * @val:	the variable it sets
 */
struct prepage_switch {
	struct kobj_attribute attr;
	bool *val;
};

static ssize_t switch_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct prepage_switch *sw = container_of(attr, struct prepage_switch,
						 attr);

	return sysfs_emit(buf, "%d\n", READ_ONCE(*sw->val));
}

static ssize_t switch_store(struct kobject *kobj, struct kobj_attribute *attr,
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

#define PREPAGE_SWITCH(_name)						\
	static struct prepage_switch _name##_switch = {			\
		.attr = __ATTR(_name, 0644, switch_show, switch_store),	\
		.val = &prepage_##_name,				\
	}

PREPAGE_SWITCH(file_enabled);
PREPAGE_SWITCH(anon_enabled);

/**
 * struct prepage_knob - a numeric tunable
 * @attr:	its sysfs file
 * @val:	the variable it sets
 * @min:	the smallest value it takes
 * @max:	the largest value it takes
 */
struct prepage_knob {
	struct kobj_attribute attr;
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static ssize_t knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct prepage_knob *knob = container_of(attr, struct prepage_knob,
						 attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*knob->val));
}

static ssize_t knob_store(struct kobject *kobj, struct kobj_attribute *attr,
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

#define PREPAGE_KNOB(_name, _min, _max)					\
	static struct prepage_knob _name##_knob = {			\
		.attr = __ATTR(_name, 0644, knob_show, knob_store),	\
		.val = &prepage_##_name,				\
		.min = _min,						\
		.max = _max,						\
	}

/* Kilobytes a window may bring in; 0 prepages nothing. */
PREPAGE_KNOB(max_switch_kbytes, 0, UINT_MAX);
/* Pages; 0 reads every extent as its own I/O. */
PREPAGE_KNOB(merge_gap_pages, 0, 1U << 20);
/* Pages; a file this large or larger gets the normal-priority prepager. */
PREPAGE_KNOB(big_file_pages, 1, UINT_MAX);
/* Pages between the pages read first for the file system's block map. */
PREPAGE_KNOB(metadata_stride_pages, 1, UINT_MAX);
/* Extents; applies to tables loaded from now on. */
PREPAGE_KNOB(max_file_extents, 1, 1U << 20);
/* Windows; applies to entries as they are next used or learned. */
PREPAGE_KNOB(anon_timeout, 1, PREPAGE_MAX_ANON_TIMEOUT);
/* Pages an anonymous prepager thread takes at a time. */
PREPAGE_KNOB(batch_pages, 1, 1024);
/* Pages; the most anonymous table entries of one process. */
PREPAGE_KNOB(max_anon_pages, 1, 1U << 24);

static struct attribute *prepage_attrs[] = {
	&enabled_attr.attr,
	&max_switch_kbytes_knob.attr.attr,
	&file_enabled_switch.attr.attr,
	&merge_gap_pages_knob.attr.attr,
	&big_file_pages_knob.attr.attr,
	&metadata_stride_pages_knob.attr.attr,
	&max_file_extents_knob.attr.attr,
	&anon_enabled_switch.attr.attr,
	&anon_timeout_knob.attr.attr,
	&batch_pages_knob.attr.attr,
	&max_anon_pages_knob.attr.attr,
	NULL,
};

static const struct attribute_group prepage_attr_group = {
	.attrs = prepage_attrs,
	.name = "prepage",
};

static int __init prepage_sysfs_init(void)
{
	int err = sysfs_create_group(mm_kobj, &prepage_attr_group);

	if (err)
		pr_err("cannot create /sys/kernel/mm/prepage: %d\n", err);
	return err;
}
subsys_initcall(prepage_sysfs_init);
