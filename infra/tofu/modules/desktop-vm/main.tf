# Renders a Fedora Silverblue VM from templates — a kickstart that installs the Silverblue image
# and layers xrdp on first boot, a libvirt domain, and the script that creates it — and runs that
# script on the libvirt host over SSH. The kickstart reaches Anaconda on a small ISO labelled
# OEMDRV, which Anaconda reads by itself; nothing is served over the network.

locals {
  sudo       = var.ssh_user == "root" ? "" : "sudo "
  stage      = var.ssh_user == "root" ? "/root/.oc-desktop-vm-${var.name}" : "/home/${var.ssh_user}/.oc-desktop-vm-${var.name}"
  images_dir = "/var/lib/libvirt/images"
  iso_url = var.installer_iso_url != "" ? var.installer_iso_url : format(
    "https://download.fedoraproject.org/pub/fedora/linux/releases/%d/Everything/x86_64/iso/Fedora-Everything-netinst-x86_64-%d-1.1.iso",
    var.fedora_version, var.fedora_version,
  )

  kickstart = templatefile("${path.module}/templates/silverblue.ks.tftpl", {
    hostname           = var.name
    fedora_version     = var.fedora_version
    timezone           = var.timezone
    rdp_user           = var.rdp_user
    password_hash      = terraform_data.password_hash.output
    ssh_authorized_key = var.ssh_authorized_key
    session_packages   = var.session_packages
    session_command    = var.session_command
  })

  domain_xml = templatefile("${path.module}/templates/domain.xml.tftpl", {
    name           = var.name
    vcpus          = var.vcpus
    memory_mib     = var.memory_mib
    desktop_width  = var.desktop_width
    desktop_height = var.desktop_height
    network        = var.network
    disk           = "${local.images_dir}/${var.name}.qcow2"
    installer_iso  = "${local.images_dir}/${basename(local.iso_url)}"
    kickstart_iso  = "${local.images_dir}/${var.name}-oemdrv.iso"
  })

  install_script = templatefile("${path.module}/templates/install-vm.sh.tftpl", {
    name          = var.name
    disk          = "${local.images_dir}/${var.name}.qcow2"
    disk_gib      = var.disk_gib
    iso_url       = local.iso_url
    installer_iso = "${local.images_dir}/${basename(local.iso_url)}"
    kickstart_iso = "${local.images_dir}/${var.name}-oemdrv.iso"
  })
}

# The password's crypt(3) hash for the kickstart, made once per password (bcrypt salts anew on
# every call, which would otherwise change the kickstart on every plan).
resource "terraform_data" "password_hash" {
  triggers_replace = [sha256(var.rdp_password)]
  input            = bcrypt(var.rdp_password)
  lifecycle {
    ignore_changes = [input]
  }
}

resource "terraform_data" "vm" {
  triggers_replace = [sha256(local.kickstart), sha256(local.domain_xml), sha256(local.install_script), var.hypervisor_host]

  connection {
    type        = "ssh"
    host        = var.hypervisor_host
    port        = var.ssh_port
    user        = var.ssh_user
    private_key = var.ssh_private_key == "" ? null : var.ssh_private_key
    agent       = var.ssh_private_key == ""
  }

  provisioner "remote-exec" {
    inline = ["umask 077 && mkdir -p '${local.stage}' && chmod 0700 '${local.stage}'"]
  }

  provisioner "file" {
    content     = local.kickstart
    destination = "${local.stage}/ks.cfg"
  }

  provisioner "file" {
    content     = local.domain_xml
    destination = "${local.stage}/domain.xml"
  }

  provisioner "file" {
    content     = local.install_script
    destination = "${local.stage}/install-vm.sh"
  }

  provisioner "remote-exec" {
    inline = ["${local.sudo}sh '${local.stage}/install-vm.sh' '${local.stage}'"]
  }
}
