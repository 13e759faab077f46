# The Fedora Silverblue desktop VM (the tool spec's target desktop): where libvirt runs, the VM's
# size and screen, and the RDP account the bridge signs in with. The password is a sensitive
# variable; the kickstart carries only its hash.

variable "hypervisor_host" {
  description = "Address of the libvirt host (reached over SSH; needs virsh, qemu-img, xorriso, curl)."
  type        = string
}

variable "ssh_user" {
  description = "SSH user on the libvirt host: root, or a user who may run sudo without a password."
  type        = string
  default     = "root"
}

variable "ssh_port" {
  type    = number
  default = 22
}

variable "ssh_private_key" {
  description = "Private key for SSH; empty uses the SSH agent."
  type        = string
  default     = ""
  sensitive   = true
}

variable "name" {
  description = "The libvirt domain's name and the VM's host name."
  type        = string
  default     = "oc-silverblue"
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,62}$", var.name))
    error_message = "name must be a host name: lower-case letters, digits and dashes."
  }
}

variable "fedora_version" {
  description = "Fedora release: the Silverblue image quay.io/fedora/fedora-silverblue:<version> and the installer ISO."
  type        = number
  default     = 42
}

variable "installer_iso_url" {
  description = "The Fedora Everything netinstall ISO for fedora_version (Anaconda installs the Silverblue image from the registry)."
  type        = string
  default     = ""
}

variable "vcpus" {
  type    = number
  default = 4
}

variable "memory_mib" {
  type    = number
  default = 8192
}

variable "disk_gib" {
  type    = number
  default = 64
}

variable "desktop_width" {
  description = "The VM console's screen width (two monitors side by side: 3840). RDP sessions take the viewer's size."
  type        = number
  default     = 3840
}

variable "desktop_height" {
  type    = number
  default = 1080
}

variable "network" {
  description = "The libvirt network the VM joins; the bridge's guacd must reach the VM's RDP port on it."
  type        = string
  default     = "default"
}

variable "rdp_user" {
  type    = string
  default = "desktop"
}

variable "rdp_password" {
  description = "Password of rdp_user (RDP sign-in); the same value goes to the stack module."
  type        = string
  sensitive   = true
}

variable "ssh_authorized_key" {
  description = "Optional public key allowed to SSH into the VM as rdp_user."
  type        = string
  default     = ""
}

variable "session_packages" {
  description = "Packages layered for the X session xrdp starts (xorgxrdp needs an X11 session)."
  type        = list(string)
  default     = ["openbox", "xterm"]
}

variable "session_command" {
  description = "The X session command written to the user's ~/.Xclients."
  type        = string
  default     = "openbox-session"
}

variable "timezone" {
  type    = string
  default = "UTC"
}
