output "name" {
  description = "The libvirt domain; its address: virsh domifaddr <name> (give it to the stack module as rdp_host)."
  value       = var.name
}

output "rdp_user" {
  value = var.rdp_user
}
